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

func TestReadyzShowsWhatADescribeCheckReports(t *testing.T) {
	t.Parallel()
	a := setup(t)
	a.deps.Ready = append(a.deps.Ready, ReadyCheck{Name: "cluster", Describe: func(context.Context) (string, error) {
		return "v1.37.2 at https://127.0.0.1:6443", nil
	}})
	a.e = New(a.deps)
	rec := a.request(visitor{}, http.MethodGet, "/readyz", nil)
	require.Equal(t, http.StatusOK, rec.Code)
	require.JSONEq(t, `{"status":"ready","checks":{"database":"ok","cluster":"ok: v1.37.2 at https://127.0.0.1:6443"}}`, rec.Body.String())

	a.deps.Ready[len(a.deps.Ready)-1].Describe = func(context.Context) (string, error) { return "", errors.New("connection refused") }
	a.e = New(a.deps)
	rec = a.request(visitor{}, http.MethodGet, "/readyz", nil)
	require.Equal(t, http.StatusServiceUnavailable, rec.Code)
	require.JSONEq(t, `{"status":"unavailable","checks":{"database":"ok","cluster":"connection refused"}}`, rec.Body.String())
}
