package handlers_test

import (
	"bytes"
	"context"
	"crypto/tls"
	"errors"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"testing"

	"github.com/styrmin/styrmin/handlers"
	"github.com/styrmin/styrmin/handlers/handlerstest"

	"github.com/stretchr/testify/require"
)

func TestHealthz(t *testing.T) {
	t.Parallel()
	a := handlerstest.Setup(t)
	rec := a.Request(handlerstest.Visitor{}, http.MethodGet, "/healthz", nil)
	require.Equal(t, http.StatusOK, rec.Code)
	require.JSONEq(t, `{"status":"ok"}`, rec.Body.String())
	require.Empty(t, rec.Result().Cookies(), "health checks get no session")
}

func TestReadyz(t *testing.T) {
	t.Parallel()
	a := handlerstest.Setup(t)
	rec := a.Request(handlerstest.Visitor{}, http.MethodGet, "/readyz", nil)
	require.Equal(t, http.StatusOK, rec.Code)
	require.JSONEq(t, `{"status":"ready","checks":{"database":"ok"}}`, rec.Body.String())
}

// TestReadyzShowsStatusesAndLogsTheDetails: anyone may call /readyz, so a
// failing check shows as "unavailable" only; what went wrong (here a socket
// path, a user name and the cluster's address) is in the log.
func TestReadyzShowsStatusesAndLogsTheDetails(t *testing.T) {
	t.Parallel()
	a := handlerstest.Setup(t)
	var logs bytes.Buffer
	a.Deps.Logger = slog.New(slog.NewTextHandler(&logs, nil))
	a.Deps.Ready = append(a.Deps.Ready,
		handlers.ReadyCheck{Name: "cluster", Check: func(context.Context) error {
			return errors.New(`Get "https://10.1.2.3:6443/version": dial tcp 10.1.2.3:6443: connect: connection refused`)
		}},
		handlers.ReadyCheck{Name: "queue", Check: func(context.Context) error {
			return errors.New(`failed to connect to user=styrmin database=styrmin host=/run/postgresql/.s.PGSQL.5432`)
		}},
	)
	a.Echo = handlers.New(a.Deps)

	rec := a.Request(handlerstest.Visitor{}, http.MethodGet, "/readyz", nil)
	require.Equal(t, http.StatusServiceUnavailable, rec.Code)
	require.JSONEq(t, `{"status":"unavailable","checks":{"database":"ok","cluster":"unavailable","queue":"unavailable"}}`, rec.Body.String())
	require.Contains(t, logs.String(), `level=WARN msg="readiness check failed" check=cluster`)
	require.Contains(t, logs.String(), "10.1.2.3:6443")
	require.Contains(t, logs.String(), "/run/postgresql/.s.PGSQL.5432")
}

// TestHSTSOnlyOverTLS: Strict-Transport-Security pins a host to HTTPS, so it
// is sent over TLS only.
func TestHSTSOnlyOverTLS(t *testing.T) {
	t.Parallel()
	a := handlerstest.Setup(t)
	for _, path := range []string{"/healthz", "/signin", "/missing"} {
		req := httptest.NewRequest(http.MethodGet, path, nil)
		rec := httptest.NewRecorder()
		a.Echo.ServeHTTP(rec, req)
		require.Empty(t, rec.Header().Get("Strict-Transport-Security"), "plain HTTP %s", path)

		req = httptest.NewRequest(http.MethodGet, path, nil)
		req.TLS = &tls.ConnectionState{}
		rec = httptest.NewRecorder()
		a.Echo.ServeHTTP(rec, req)
		require.Equal(t, "max-age=31536000; includeSubDomains", rec.Header().Get("Strict-Transport-Security"), "HTTPS %s", path)
	}
}
