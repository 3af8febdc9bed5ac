package kube_test

import (
	"context"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	"k8s.io/client-go/rest"

	"github.com/styrmin/styrmin/devcluster/kubetest"
	"github.com/styrmin/styrmin/kube"
	"github.com/styrmin/styrmin/version"
)

func TestConnectReportsTheLocalCluster(t *testing.T) {
	client, err := kube.Connect(kubetest.Kubeconfig(t), "")
	require.NoError(t, err)

	version, err := client.ServerVersion(context.Background())
	require.NoError(t, err)
	require.Equal(t, "v1.37.2", version)

	health := client.Health(context.Background(), 5*time.Second)
	require.Equal(t, kube.Health{Server: client.Server(), Reachable: true, Version: "v1.37.2"}, health)
}

func TestTheClientSendsStyrminsUserAgent(t *testing.T) {
	t.Parallel()
	agents := make(chan string, 1)
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		agents <- r.UserAgent()
		w.Header().Set("Content-Type", "application/json")
		w.Write([]byte(`{"gitVersion": "v1.37.2"}`))
	}))
	defer srv.Close()
	client, err := kube.New(&rest.Config{Host: srv.URL})
	require.NoError(t, err)
	got, err := client.ServerVersion(t.Context())
	require.NoError(t, err)
	require.Equal(t, "v1.37.2", got)
	require.Equal(t, version.UserAgent(), <-agents)
}

func TestHealthOfAnUnreachableCluster(t *testing.T) {
	t.Parallel()
	// A kubeconfig pointing at a closed port: reachable false, with the reason.
	path := filepath.Join(t.TempDir(), "kubeconfig")
	require.NoError(t, os.WriteFile(path, []byte(`apiVersion: v1
kind: Config
clusters: [{name: c, cluster: {server: "https://127.0.0.1:1"}}]
users: [{name: u, user: {token: t}}]
contexts: [{name: c, context: {cluster: c, user: u}}]
current-context: c
`), 0o600))
	client, err := kube.Connect(path, "")
	require.NoError(t, err)

	health := client.Health(context.Background(), 5*time.Second)
	require.False(t, health.Reachable)
	require.Equal(t, "https://127.0.0.1:1", health.Server)
	require.Contains(t, health.Error, "connection refused")
}

func TestConnectErrors(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name    string
		content string // "" means: the file does not exist
		want    string
	}{
		{"missing file", "", "no such file or directory"},
		{"not yaml", "{{{", "kube: load kubeconfig"},
		{"no current context", "apiVersion: v1\nkind: Config\n", "no cluster configured"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			path := filepath.Join(t.TempDir(), "kubeconfig")
			if tt.content != "" {
				require.NoError(t, os.WriteFile(path, []byte(tt.content), 0o600))
			}
			_, err := kube.Connect(path, "")
			require.ErrorContains(t, err, tt.want)
		})
	}
}

func TestConnectUsesTheChosenContext(t *testing.T) {
	t.Parallel()
	path := filepath.Join(t.TempDir(), "kubeconfig")
	require.NoError(t, os.WriteFile(path, []byte(`apiVersion: v1
kind: Config
current-context: first
clusters:
- {name: one, cluster: {server: "https://one.example:6443"}}
- {name: two, cluster: {server: "https://two.example:6443"}}
users:
- {name: me, user: {token: t}}
contexts:
- {name: first, context: {cluster: one, user: me}}
- {name: second, context: {cluster: two, user: me}}
`), 0o600))
	client, err := kube.Connect(path, "")
	require.NoError(t, err)
	require.Equal(t, "https://one.example:6443", client.Server())
	client, err = kube.Connect(path, "second")
	require.NoError(t, err)
	require.Equal(t, "https://two.example:6443", client.Server())
	_, err = kube.Connect(path, "third")
	require.ErrorContains(t, err, `context "third" does not exist`)
}
