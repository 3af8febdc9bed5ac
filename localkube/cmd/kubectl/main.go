// Command kubectl is the Kubernetes command-line client, built so that
// `.cluster/bin/kubectl --kubeconfig .cluster/kubeconfig get nodes` works on a
// machine without kubectl installed.
package main

import (
	"os"

	"k8s.io/component-base/cli"
	"k8s.io/component-base/logs"
	"k8s.io/kubectl/pkg/cmd"
	"k8s.io/kubectl/pkg/cmd/util"
)

func main() {
	logs.GlogSetter(cmd.GetLogVerbosity(os.Args)) //nolint:errcheck // best effort, as upstream kubectl
	if err := cli.RunNoErrOutput(cmd.NewDefaultKubectlCommand()); err != nil {
		util.CheckErr(err)
	}
}
