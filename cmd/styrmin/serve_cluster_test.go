package main

import (
	"net/http"
	"testing"

	"github.com/stretchr/testify/require"
	"k8s.io/client-go/tools/clientcmd"

	"github.com/styrmin/styrmin/db/dbtest"
	"github.com/styrmin/styrmin/devcluster/kubetest"
)

func TestServeReportsTheClusterOnReadyzAndInTheLog(t *testing.T) {
	t.Parallel()
	kubeconfig := kubetest.Kubeconfig(t)
	cfg := serveConfig{addr: freeAddr(t), databaseURL: dbtest.NewURL(t), logFormat: "json", deploy: withKubeconfig(testDeploy, kubeconfig)}
	_, logs, stop := startServe(t, cfg)

	status, body := get(t, "http://"+cfg.addr+"/readyz")
	require.Equal(t, http.StatusOK, status)
	require.JSONEq(t, `{"status":"ready","checks":{"database":"ok","cluster":"ok"}}`, body, "statuses only: the cluster's address is in the log")
	require.NoError(t, stop())
	config, err := clientcmd.BuildConfigFromFlags("", kubeconfig)
	require.NoError(t, err)
	require.Contains(t, logs.String(), `"msg":"cluster connected","server":"`+config.Host+`","version":"v1.37.2"`)
}

func TestServeRefusesAMissingKubeconfig(t *testing.T) {
	t.Parallel()
	err := runServe(t.Context(), serveConfig{addr: freeAddr(t), databaseURL: dbtest.NewURL(t), logFormat: "text", deploy: withKubeconfig(testDeploy, "/nonexistent/kubeconfig")}, &syncBuffer{}, &syncBuffer{})
	require.ErrorContains(t, err, "/nonexistent/kubeconfig")
}
