// Package kubetest gives tests the local Kubernetes cluster of this checkout,
// as db/dbtest gives them a database.
package kubetest

import (
	"bytes"
	"context"
	"fmt"
	"math/rand/v2"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"k8s.io/client-go/tools/clientcmd"

	"github.com/styrmin/styrmin/devcluster"
)

// Kubeconfig returns the kubeconfig of the shared local cluster of this
// checkout, building and starting it when none runs. The cluster is left
// running for the other test packages; `make test` starts it before the tests
// and stops it afterwards when it started it (`go run ./devcluster/cmd/cluster scope`).
// With -short (the fast tier, which leaves the cluster out) it skips the test.
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

var (
	runnerOnce  sync.Once
	runnerImage string
	runnerErr   error
)

// ActionRunnerImage builds the action-runner image and imports it into the
// local cluster's node (scripts/action-runner-image), once per test binary,
// and returns its name. The cluster must run (Kubeconfig).
func ActionRunnerImage(t testing.TB) string {
	t.Helper()
	runnerOnce.Do(func() {
		root, err := devcluster.FindRoot(".")
		if err != nil {
			runnerErr = err
			return
		}
		cmd := exec.Command(filepath.Join(root, "scripts", "action-runner-image"))
		var stderr bytes.Buffer
		cmd.Stderr = &stderr
		out, err := cmd.Output()
		if err != nil {
			runnerErr = fmt.Errorf("scripts/action-runner-image: %w: %s", err, stderr.String())
		}
		runnerImage = strings.TrimSpace(string(out))
	})
	if runnerErr != nil {
		t.Fatal(runnerErr)
	}
	return runnerImage
}

// HostForPods is the host's address that the local cluster's pods reach:
// the API server's (docs/local-cluster.md). A server a pod must call (the
// action API of the pod runtime) listens there.
func HostForPods(t testing.TB, kubeconfig string) string {
	t.Helper()
	cfg, err := clientcmd.BuildConfigFromFlags("", kubeconfig)
	if err != nil {
		t.Fatal(err)
	}
	u, err := url.Parse(cfg.Host)
	if err != nil {
		t.Fatal(err)
	}
	return u.Hostname()
}

// UniqueName returns prefix followed by a random number: a name for a
// deployment, release or namespace that no other test on the shared cluster
// takes. The suffix is digits only, so that a name never holds a word such
// as "pwd" or "token" that makes the redactor read "name: value" in a
// message as a secret.
func UniqueName(prefix string) string {
	return fmt.Sprintf("%s-%010d", prefix, rand.Int64N(1e10))
}
