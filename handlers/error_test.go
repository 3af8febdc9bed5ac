package handlers_test

import (
	"context"
	"io"
	"log/slog"
	"net"
	"net/http"
	"strings"
	"testing"

	"github.com/styrmin/styrmin/handlers"
	"github.com/styrmin/styrmin/handlers/handlerstest"

	"github.com/jackc/pgx/v5/pgxpool"
	"github.com/stretchr/testify/require"

	"github.com/styrmin/styrmin/auth"
)

func TestNotFoundPage(t *testing.T) {
	t.Parallel()
	a := handlerstest.Setup(t)
	reader, _ := a.As(t, "reader", auth.ReadOnly)

	rec := a.Request(reader, http.MethodGet, "/no/such/page", nil)
	require.Equal(t, http.StatusNotFound, rec.Code)
	doc := handlerstest.Parse(t, rec)
	require.Equal(t, "404", handlerstest.Text(doc.Find(`[data-testid="error-status"]`)))
	require.Equal(t, "Page not found", handlerstest.Text(doc.Find("h1")))
	require.Equal(t, "reader", handlerstest.Text(doc.Find(`[data-testid="current-user"]`)), "the page keeps the signed-in layout")

	rec = a.Request(reader, http.MethodGet, "/no/such/page", nil, "HX-Request", "true")
	require.Equal(t, http.StatusNotFound, rec.Code)
	require.Equal(t, "#flash", rec.Header().Get("HX-Retarget"))
	require.Equal(t, "innerHTML", rec.Header().Get("HX-Reswap"))
	doc = handlerstest.Parse(t, rec)
	require.Empty(t, doc.Find("header").Nodes, "an htmx request gets a fragment, not a page")
	require.Contains(t, handlerstest.Text(doc.Find(`[data-testid="flash-error"]`)), "There is no page at this address")
}

func TestEveryResponseCarriesSecurityHeaders(t *testing.T) {
	t.Parallel()
	a := handlerstest.Setup(t)
	for _, path := range []string{"/signin", "/healthz", "/static/css/app.css", "/missing"} {
		rec := a.Request(handlerstest.Visitor{}, http.MethodGet, path, nil)
		require.Contains(t, rec.Header().Get("Content-Security-Policy"), "script-src 'self'", path)
		require.Equal(t, "nosniff", rec.Header().Get("X-Content-Type-Options"), path)
		require.Equal(t, "DENY", rec.Header().Get("X-Frame-Options"), path)
	}
}

// TestDatabaseOutageGives503 runs the server against a database address where
// nothing listens: pages that need the database say so with a 503, the
// sign-in page and /healthz still answer, and /readyz reports the outage.
func TestDatabaseOutageGives503(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	deadAddr := ln.Addr().String()
	require.NoError(t, ln.Close())

	pool, err := pgxpool.New(ctx, "postgres://nobody@"+deadAddr+"/nothing?connect_timeout=2")
	require.NoError(t, err)
	t.Cleanup(pool.Close)
	users, err := auth.NewUsers(pool, auth.WithArgon2(auth.CheapArgon2()))
	require.NoError(t, err)
	// The visitor signed in while the database answered; the server below
	// shares the session key but not the database.
	v, _ := handlerstest.Setup(t).As(t, "root", auth.Admin)
	sessions, err := auth.NewSessions([]byte(strings.Repeat("s", auth.MinSessionKeyLength)), pool)
	require.NoError(t, err)
	a := &handlerstest.App{Sessions: sessions, Echo: handlers.New(handlers.Deps{
		Logger:   slog.New(slog.NewTextHandler(io.Discard, nil)),
		Sessions: sessions,
		Users:    users,
		Ready:    []handlers.ReadyCheck{{Name: "database", Check: pool.Ping}},
	})}

	rec := a.Request(v, http.MethodGet, "/users", nil)
	require.Equal(t, http.StatusServiceUnavailable, rec.Code)
	require.Contains(t, handlerstest.Text(handlerstest.Parse(t, rec).Find(`[data-testid="error-message"]`)), "The database does not answer right now")

	require.Equal(t, http.StatusOK, a.Request(handlerstest.Visitor{}, http.MethodGet, "/signin", nil).Code)
	require.Equal(t, http.StatusOK, a.Request(handlerstest.Visitor{}, http.MethodGet, "/healthz", nil).Code)
	rec = a.Request(handlerstest.Visitor{}, http.MethodGet, "/readyz", nil)
	require.Equal(t, http.StatusServiceUnavailable, rec.Code)
	require.Contains(t, rec.Body.String(), `"status":"unavailable"`)
	require.Contains(t, rec.Body.String(), `"database":`)
}
