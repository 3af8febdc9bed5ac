package kube_test

import (
	"net/http"
	"net/http/httptest"
	"sync"
	"testing"

	"github.com/stretchr/testify/require"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/rest"

	"github.com/styrmin/styrmin/kube"
)

func TestRequestNamespaceIsTheNamespaceTheAPIServerActsIn(t *testing.T) {
	t.Parallel()
	for path, want := range map[string]string{
		"/api/v1/namespaces/team-a/pods":                                    "team-a",
		"/api/v1/namespaces/team-a/pods/p/log":                              "team-a",
		"/api/v1/namespaces/team-a/secrets/s":                               "team-a",
		"/apis/batch/v1/namespaces/team-b/jobs/j":                           "team-b",
		"/apis/apps/v1/namespaces/team-b/deployments":                       "team-b",
		"/api/v1/watch/namespaces/team-c/pods":                              "team-c",
		"/apis/apps/v1/watch/namespaces/team-c/replicasets":                 "team-c",
		"/api/v1/namespaces/team-a/":                                        "",
		"/api/v1/namespaces/team-a":                                         "",
		"/api/v1/namespaces/team-a/status":                                  "",
		"/api/v1/namespaces/team-a/finalize":                                "",
		"/api/v1/namespaces":                                                "",
		"/api/v1/nodes":                                                     "",
		"/api/v1/pods":                                                      "",
		"/apis/admissionregistration.k8s.io/v1/validatingadmissionpolicies": "",
		"/version":                "",
		"/apis":                   "",
		"/api":                    "",
		"/namespaces/team-a/pods": "",
	} {
		got, ok := kube.RequestNamespace(path)
		require.Equal(t, want, got, path)
		require.Equal(t, want != "", ok, path)
	}
}

func TestAnActingClientImpersonatesOnlyInsideNamespaces(t *testing.T) {
	t.Parallel()
	var mu sync.Mutex
	seen := map[string]string{}
	server := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		mu.Lock()
		seen[r.URL.Path] = r.Header.Get("Impersonate-User")
		mu.Unlock()
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(http.StatusNotFound)
		_, _ = w.Write([]byte(`{"kind":"Status","apiVersion":"v1","status":"Failure","code":404,"reason":"NotFound"}`))
	}))
	t.Cleanup(server.Close)
	own, err := kube.New(&rest.Config{Host: server.URL})
	require.NoError(t, err)
	acting, err := own.ActingAs(func(namespace string) rest.ImpersonationConfig {
		return rest.ImpersonationConfig{UserName: "deployer-of-" + namespace}
	})
	require.NoError(t, err)
	ctx := t.Context()
	_, _ = acting.Clientset.CoreV1().Secrets("team-a").Get(ctx, "s", metav1.GetOptions{})
	_, _ = acting.Clientset.BatchV1().Jobs("team-b").List(ctx, metav1.ListOptions{})
	_, _ = acting.Clientset.CoreV1().Namespaces().Get(ctx, "team-a", metav1.GetOptions{})
	_, _ = acting.Clientset.CoreV1().Nodes().List(ctx, metav1.ListOptions{})
	_, _ = own.Clientset.CoreV1().Secrets("team-a").Get(ctx, "own", metav1.GetOptions{})
	mu.Lock()
	defer mu.Unlock()
	require.Equal(t, map[string]string{
		"/api/v1/namespaces/team-a/secrets/s":   "deployer-of-team-a",
		"/apis/batch/v1/namespaces/team-b/jobs": "deployer-of-team-b",
		"/api/v1/namespaces/team-a":             "",
		"/api/v1/nodes":                         "",
		"/api/v1/namespaces/team-a/secrets/own": "",
	}, seen)
	require.Same(t, own.Config, acting.Config, "Helm's and the deployers' clients keep the own identity")
}
