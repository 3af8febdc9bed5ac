// Package kubetest gives tests the local Kubernetes cluster of this checkout,
// as db/dbtest gives them a database.
package kubetest

import (
	"context"
	"os"
	"testing"
	"time"

	"github.com/styrmin/styrmin/devcluster"
)

// Kubeconfig returns the kubeconfig of the shared local cluster of this
// checkout, building and starting it when none runs. The cluster is left
// running for the other test packages; `make test` starts it before the tests
// and stops it afterwards when it started it (`go run ./devcluster/cmd/cluster scope`).
// With -short (the race detector's run in `make test`) it skips the test.
func Kubeconfig(t testing.TB) string {
	t.Helper()
	if testing.Short() {
		t.Skip("needs the local Kubernetes cluster, which -short leaves out")
	}
	root, err := devcluster.FindRoot(".")
	if err != nil {
		t.Fatal(err)
	}
	cluster, err := devcluster.New(root, os.Stderr)
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 40*time.Minute)
	defer cancel()
	kubeconfig, _, err := cluster.Ensure(ctx)
	if err != nil {
		t.Fatalf("local cluster: %v", err)
	}
	return kubeconfig
}
