package main

import (
	"net/http"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/styrmin/styrmin/db/dbtest"
	"github.com/styrmin/styrmin/devcluster/kubetest"
)

func TestServeReportsTheClusterOnReadyzAndInTheLog(t *testing.T) {
	t.Parallel()
	cfg := serveConfig{addr: freeAddr(t), databaseURL: dbtest.NewURL(t), logFormat: "json", deploy: withKubeconfig(testDeploy, kubetest.Kubeconfig(t))}
	_, logs, stop := startServe(t, cfg)

	status, body := get(t, "http://"+cfg.addr+"/readyz")
	require.Equal(t, http.StatusOK, status)
	require.JSONEq(t, `{"status":"ready","checks":{"database":"ok","cluster":"ok"}}`, body, "statuses only: the cluster's address is in the log")
	require.NoError(t, stop())
	require.Regexp(t, `"msg":"cluster connected","server":"https://127\.0\.0\.1:\d+","version":"v1\.37\.2"`, logs.String())
}

func TestServeRefusesAMissingKubeconfig(t *testing.T) {
	t.Parallel()
	err := runServe(t.Context(), serveConfig{addr: freeAddr(t), databaseURL: dbtest.NewURL(t), logFormat: "text", deploy: withKubeconfig(testDeploy, "/nonexistent/kubeconfig")}, &syncBuffer{}, &syncBuffer{})
	require.ErrorContains(t, err, "/nonexistent/kubeconfig")
}
