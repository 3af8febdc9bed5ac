package handlers

import (
	"context"
	"net/http"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/styrmin/styrmin/auth"
	"github.com/styrmin/styrmin/db"
	"github.com/styrmin/styrmin/pglocal"
)

// TestServerSurvivesADatabaseRestart stops the database under a running
// server: pages answer 503 with a clear message and /readyz reports it; once
// the database is back, the same session works again.
func TestServerSurvivesADatabaseRestart(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	root, err := os.MkdirTemp("", "styrmin-outage-")
	require.NoError(t, err)
	t.Cleanup(func() { _ = os.RemoveAll(root) })
	require.NoError(t, os.Chmod(root, 0o711))
	dir := filepath.Join(root, "data")
	cluster, err := pglocal.Start(ctx, pglocal.Options{Dir: dir, Fast: true})
	require.NoError(t, err)
	t.Cleanup(func() { _ = cluster.Stop() })

	pool, err := db.Open(ctx, cluster.URL("postgres"))
	require.NoError(t, err)
	t.Cleanup(pool.Close)
	_, err = db.Migrate(ctx, pool)
	require.NoError(t, err)
	a := setupOn(t, pool)
	admin, _ := a.as(t, "root", auth.Admin)
	require.Equal(t, http.StatusOK, a.request(admin, http.MethodGet, "/users", nil).Code)

	require.NoError(t, cluster.Stop())
	rec := a.request(admin, http.MethodGet, "/users", nil)
	require.Equal(t, http.StatusServiceUnavailable, rec.Code, rec.Body.String())
	require.Contains(t, text(parse(t, rec).Find(`[data-testid="error-message"]`)), "The database does not answer right now")
	require.Equal(t, http.StatusServiceUnavailable, a.request(visitor{}, http.MethodGet, "/readyz", nil).Code)
	require.Equal(t, http.StatusOK, a.request(visitor{}, http.MethodGet, "/healthz", nil).Code, "the process lives on")

	cluster, err = pglocal.Start(ctx, pglocal.Options{Dir: dir, Fast: true})
	require.NoError(t, err)
	t.Cleanup(func() { _ = cluster.Stop() })
	require.Equal(t, http.StatusOK, a.request(visitor{}, http.MethodGet, "/readyz", nil).Code)
	require.Equal(t, http.StatusOK, a.request(admin, http.MethodGet, "/users", nil).Code, "the pool reconnects")
}
