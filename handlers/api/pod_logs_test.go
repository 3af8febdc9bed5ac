package api_test

import (
	"net/http"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/styrmin/styrmin/auth"
	"github.com/styrmin/styrmin/handlers/handlerstest"
)

// podLog is a log whose second line quotes the deployment's password.
const podLog = "2026-12-05T10:00:01.5Z starting\n2026-12-05T10:00:02.25Z connecting with " + handlerstest.PgSecret + "\n"

func TestAPIPodLogsShowsAReadOnlyUserTheLogRedacted(t *testing.T) {
	t.Parallel()
	d := handlerstest.SetupDeploymentsOn(t, handlerstest.PgLogging(t, "orders", podLog))
	d.Install(t, handlerstest.PgInstall("orders"))
	token := d.TokenFor(t, "reta", auth.ReadOnly)

	rec := d.Call(t, token, http.MethodGet, "/api/v1/deployments/orders/pods/orders-postgresql-0/logs?tail_lines=10", nil)
	require.Equal(t, http.StatusOK, rec.Code, rec.Body.String())
	require.Equal(t, "starting\nconnecting with <redacted>\n", rec.Body.String())
	require.Equal(t, "2026-12-05T10:00:02.25Z", rec.Header().Get("Styrmin-Log-Cursor"))
	require.Empty(t, rec.Header().Get("Styrmin-Log-Cut"))

	rec = d.Call(t, token, http.MethodGet, "/api/v1/deployments/orders/pods/orders-postgresql-0/logs?format=jsonl&container=postgresql&since=2026-12-05T10:00:01.5Z", nil)
	require.Equal(t, http.StatusOK, rec.Code, rec.Body.String())
	require.Equal(t, `{"at":"2026-12-05T10:00:02.25Z","text":"connecting with \u003credacted\u003e"}`+"\n", rec.Body.String(),
		"the lines after the cursor, as JSON lines")
	require.NotContains(t, rec.Body.String(), handlerstest.PgSecret)
}

func TestAPIPodLogsRefusesForeignPodsAndBadBounds(t *testing.T) {
	t.Parallel()
	d := handlerstest.SetupDeploymentsOn(t, handlerstest.PgLogging(t, "orders", podLog))
	d.Install(t, handlerstest.PgInstall("orders"))
	token := d.TokenFor(t, "reta", auth.ReadOnly)

	for _, path := range []string{"/deployments/orders/pods/stray-0/logs", "/deployments/nope/pods/orders-postgresql-0/logs", "/deployments/orders/pods/kube-apiserver-node/logs"} {
		rec := d.Call(t, token, http.MethodGet, "/api/v1"+path, nil)
		require.Equal(t, http.StatusNotFound, rec.Code, path)
		require.NotContains(t, rec.Body.String(), "connecting")
	}
	rec := d.Call(t, token, http.MethodGet, "/api/v1/deployments/orders/pods/orders-postgresql-0/logs?tail_lines=100000", nil)
	require.Equal(t, http.StatusBadRequest, rec.Code)
	require.True(t, strings.Contains(rec.Body.String(), "tail_lines"), rec.Body.String())
	rec = d.Call(t, "", http.MethodGet, "/api/v1/deployments/orders/pods/orders-postgresql-0/logs", nil)
	require.Equal(t, http.StatusUnauthorized, rec.Code, "signed-in users only")
}
