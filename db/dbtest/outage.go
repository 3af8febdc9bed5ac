package dbtest

import (
	"context"
	"os"
	"path/filepath"
	"testing"

	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/styrmin/styrmin/db"
	"github.com/styrmin/styrmin/pglocal"
)

// Stoppable is a migrated PostgreSQL cluster of one test's own, for tests
// that stop the database under a running server and start it again.
type Stoppable struct {
	// Pool is connected to the cluster; it reconnects after Start.
	Pool    *pgxpool.Pool
	dir     string
	cluster *pglocal.Cluster
}

// NewStoppable starts a private cluster in a temporary folder and migrates
// it; the cluster is stopped and its folder removed when the test ends.
func NewStoppable(t testing.TB) *Stoppable {
	t.Helper()
	ctx := context.Background()
	root, err := os.MkdirTemp("", "styrmin-outage-")
	if err != nil {
		t.Fatalf("dbtest: %v", err)
	}
	t.Cleanup(func() { _ = os.RemoveAll(root) })
	// The postgres user (when running as root) must be able to enter the folder.
	if err := os.Chmod(root, 0o711); err != nil {
		t.Fatalf("dbtest: %v", err)
	}
	s := &Stoppable{dir: filepath.Join(root, "data")}
	s.Start(t)
	s.Pool, err = db.Open(ctx, s.cluster.URL("postgres"))
	if err != nil {
		t.Fatalf("dbtest: %v", err)
	}
	t.Cleanup(s.Pool.Close)
	if _, err := db.Migrate(ctx, s.Pool); err != nil {
		t.Fatalf("dbtest: %v", err)
	}
	return s
}

// Stop stops the cluster: every query fails until Start.
func (s *Stoppable) Stop(t testing.TB) {
	t.Helper()
	if err := s.cluster.Stop(); err != nil {
		t.Fatalf("dbtest: stop: %v", err)
	}
}

// Start starts the cluster (again, on the same data).
func (s *Stoppable) Start(t testing.TB) {
	t.Helper()
	cluster, err := pglocal.Start(context.Background(), pglocal.Options{Dir: s.dir, Fast: true})
	if err != nil {
		t.Fatalf("dbtest: start: %v", err)
	}
	s.cluster = cluster
	t.Cleanup(func() { _ = cluster.Stop() })
}
