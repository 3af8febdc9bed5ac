//go:build tools

// Package localkube records commands built straight from their modules as
// dependencies of this module, so that `go build sigs.k8s.io/kwok/cmd/kwok`
// and `go build k8s.io/kubernetes/cmd/kube-proxy` (the real node's) work from here.
package localkube

import (
	_ "k8s.io/kubernetes/cmd/kube-proxy"
	_ "sigs.k8s.io/kwok/cmd/kwok"
)
