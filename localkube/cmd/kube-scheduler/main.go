// Command kube-scheduler binds pods to the local cluster's kwok node, built from
// k8s.io/kubernetes (kwok does not schedule).
package main

import (
	"os"

	"k8s.io/component-base/cli"
	"k8s.io/kubernetes/cmd/kube-scheduler/app"
)

func main() {
	os.Exit(cli.Run(app.NewSchedulerCommand()))
}
