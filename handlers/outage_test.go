package handlers_test

import (
	"net/http"
	"net/url"
	"testing"

	"github.com/styrmin/styrmin/handlers/handlerstest"

	"github.com/stretchr/testify/require"

	"github.com/styrmin/styrmin/auth"
	"github.com/styrmin/styrmin/db/dbtest"
)

// TestServerSurvivesADatabaseRestart stops the database under a running
// server: pages that need the database answer 503 with a clear message, the
// sign-in page and /healthz still answer, and /readyz reports the outage;
// once the database is back, the same session works again.
func TestServerSurvivesADatabaseRestart(t *testing.T) {
	t.Parallel()
	pg := dbtest.NewStoppable(t)
	a := handlerstest.SetupOn(t, pg.Pool)
	admin, _ := a.As(t, "root", auth.Admin)
	signinVisitor := a.Anonymous(t)
	require.Equal(t, http.StatusOK, a.Request(admin, http.MethodGet, "/users", nil).Code)

	pg.Stop(t)
	rec := a.Request(admin, http.MethodGet, "/users", nil)
	require.Equal(t, http.StatusServiceUnavailable, rec.Code, rec.Body.String())
	require.Contains(t, handlerstest.Text(handlerstest.Parse(t, rec).Find(`[data-testid="error-message"]`)), "The database does not answer right now")
	rec = a.Request(handlerstest.Visitor{}, http.MethodGet, "/readyz", nil)
	require.Equal(t, http.StatusServiceUnavailable, rec.Code)
	require.Contains(t, rec.Body.String(), `"status":"unavailable"`)
	require.Contains(t, rec.Body.String(), `"database":`)
	require.Equal(t, http.StatusOK, a.Request(handlerstest.Visitor{}, http.MethodGet, "/healthz", nil).Code, "the process lives on")
	require.Equal(t, http.StatusOK, a.Request(handlerstest.Visitor{}, http.MethodGet, "/signin", nil).Code, "the sign-in page needs no database")

	// Issue 7: a sign-in during the outage is not a wrong password.
	rec = a.Request(signinVisitor, http.MethodPost, "/signin", url.Values{"username": {"root"}, "password": {handlerstest.TestPassword}})
	require.Equal(t, http.StatusServiceUnavailable, rec.Code, rec.Body.String())
	require.NotContains(t, rec.Body.String(), "Wrong username or password")

	pg.Start(t)
	require.Equal(t, http.StatusOK, a.Request(handlerstest.Visitor{}, http.MethodGet, "/readyz", nil).Code)
	require.Equal(t, http.StatusOK, a.Request(admin, http.MethodGet, "/users", nil).Code, "the pool reconnects")
}
