package handlers

import (
	"context"
	"errors"
	"net/http"
	"testing"

	"github.com/stretchr/testify/require"
)

func TestHealthz(t *testing.T) {
	t.Parallel()
	a := setup(t)
	rec := a.request(visitor{}, http.MethodGet, "/healthz", nil)
	require.Equal(t, http.StatusOK, rec.Code)
	require.JSONEq(t, `{"status":"ok"}`, rec.Body.String())
	require.Empty(t, rec.Result().Cookies(), "health checks get no session")
}

func TestReadyz(t *testing.T) {
	t.Parallel()
	a := setup(t)
	rec := a.request(visitor{}, http.MethodGet, "/readyz", nil)
	require.Equal(t, http.StatusOK, rec.Code)
	require.JSONEq(t, `{"status":"ready","checks":{"database":"ok"}}`, rec.Body.String())

	a.deps.Ready = append(a.deps.Ready, ReadyCheck{Name: "cluster", Check: func(context.Context) error { return errors.New("no route to host") }})
	a.e = New(a.deps)
	rec = a.request(visitor{}, http.MethodGet, "/readyz", nil)
	require.Equal(t, http.StatusServiceUnavailable, rec.Code)
	require.JSONEq(t, `{"status":"unavailable","checks":{"database":"ok","cluster":"no route to host"}}`, rec.Body.String())
}
