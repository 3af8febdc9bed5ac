package handlers

import (
	"testing"

	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/styrmin/styrmin/catalog"
)

// addTestDeps fills in the dependencies of the pages beyond sign-in and
// users, so that every route in the permission table has what it needs.
func addTestDeps(t *testing.T, pool *pgxpool.Pool, deps *Deps) {
	t.Helper()
	deps.Drivers = catalog.New(pool)
}
