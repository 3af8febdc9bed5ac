//go:build tools

// Package localkube records the kwok command as a dependency of this module so
// that `go build sigs.k8s.io/kwok/cmd/kwok` works from here.
package localkube

import _ "sigs.k8s.io/kwok/cmd/kwok"
