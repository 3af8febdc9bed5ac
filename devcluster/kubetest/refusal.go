package kubetest

import (
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// DryRun creates nothing, but is authorized and admitted as a create is.
var DryRun = metav1.CreateOptions{DryRun: []string{metav1.DryRunAll}}

// RequireForbidden checks that the API server refused a request (403).
func RequireForbidden(t testing.TB, err error, what string) {
	t.Helper()
	require.Error(t, err, what+" was allowed")
	require.True(t, apierrors.IsForbidden(err), "%s: refused for another reason: %v", what, err)
}

// Eventually retries try for up to 30 s, until it returns nil: RBAC objects
// and admission policies take a moment to be in force.
func Eventually(t testing.TB, what string, try func() error) {
	t.Helper()
	var err error
	for deadline := time.Now().Add(30 * time.Second); time.Now().Before(deadline); time.Sleep(100 * time.Millisecond) {
		if err = try(); err == nil {
			return
		}
	}
	t.Fatalf("%s: %v", what, err)
}
