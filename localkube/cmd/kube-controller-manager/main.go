// Command kube-controller-manager runs the Kubernetes controllers (Jobs, Deployments,
// ReplicaSets, service accounts, …) of the local cluster, built from k8s.io/kubernetes.
package main

import (
	"os"

	"k8s.io/component-base/cli"
	"k8s.io/kubernetes/cmd/kube-controller-manager/app"
)

func main() {
	os.Exit(cli.Run(app.NewControllerManagerCommand()))
}
