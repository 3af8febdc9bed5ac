// Package dbtest gives each test its own migrated PostgreSQL database.
//
// The first call in a test process starts a private cluster (pglocal) in a
// temporary folder, or uses the server at STYRMIN_TEST_DATABASE_URL when set
// (its role needs CREATEDB). The schema is migrated once into a template
// database named after the migrations' digest; every test then gets a fresh
// copy (CREATE DATABASE ... TEMPLATE), dropped when the test ends.
package dbtest

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"io/fs"
	"net/url"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"
	"github.com/styrmin/styrmin/db"
	"github.com/styrmin/styrmin/pglocal"
)

// EnvURL names the variable that points the tests at an existing server.
const EnvURL = "STYRMIN_TEST_DATABASE_URL"

var (
	serverOnce sync.Once
	server     *testServer
	serverErr  error
	counter    atomic.Int64
)

// testServer is the PostgreSQL server of this test process and the name of its template.
type testServer struct {
	baseURL  string // URL of the maintenance database
	template string
	// strategy is " STRATEGY FILE_COPY" on PostgreSQL 15 and later: copying the
	// files of a small template is ten times faster than logging them.
	strategy string
}

// New returns a pool on a new database holding the migrated schema; the
// database is dropped when the test ends.
func New(t testing.TB) *pgxpool.Pool {
	t.Helper()
	url := NewURL(t)
	ctx := context.Background()
	pool, err := db.Open(ctx, url) // the product's pool settings
	if err != nil {
		t.Fatalf("dbtest: connect: %v", err)
	}
	t.Cleanup(pool.Close) // runs before the drop registered by NewURL
	return pool
}

// NewURL creates a new migrated database and returns its URL; the database is
// dropped when the test ends.
func NewURL(t testing.TB) string {
	t.Helper()
	serverOnce.Do(func() { server, serverErr = startServer() })
	if serverErr != nil {
		t.Fatalf("dbtest: %v", serverErr)
	}
	ctx := context.Background()
	name := fmt.Sprintf("styrmin_test_%d_%d", os.Getpid(), counter.Add(1))
	if err := server.exec(ctx, "CREATE DATABASE "+pgx.Identifier{name}.Sanitize()+" TEMPLATE "+pgx.Identifier{server.template}.Sanitize()+server.strategy); err != nil {
		t.Fatalf("dbtest: create database %s: %v", name, err)
	}
	t.Cleanup(func() {
		if err := server.exec(context.Background(), "DROP DATABASE IF EXISTS "+pgx.Identifier{name}.Sanitize()+" WITH (FORCE)"); err != nil {
			t.Errorf("dbtest: drop database %s: %v", name, err)
		}
	})
	return withDatabase(server.baseURL, name)
}

func startServer() (*testServer, error) {
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	base := os.Getenv(EnvURL)
	if base == "" {
		cluster, err := startCluster(ctx)
		if err != nil {
			return nil, err
		}
		base = cluster.URL("postgres")
	}
	s := &testServer{baseURL: base, template: "styrmin_template_" + migrationsDigest()}
	if err := s.ensureTemplate(ctx); err != nil {
		return nil, err
	}
	return s, nil
}

// startCluster starts this process's private cluster in a temporary folder,
// first removing folders left by test processes that are gone.
func startCluster(ctx context.Context) (*pglocal.Cluster, error) {
	removeAbandoned()
	root, err := os.MkdirTemp("", "styrmin-pgtest-")
	if err != nil {
		return nil, err
	}
	// The postgres user (when running as root) must be able to enter the folder.
	if err := os.Chmod(root, 0o711); err != nil {
		return nil, err
	}
	if err := os.WriteFile(filepath.Join(root, "owner"), []byte(strconv.Itoa(os.Getpid())), 0o644); err != nil {
		return nil, err
	}
	return pglocal.Start(ctx, pglocal.Options{Dir: filepath.Join(root, "data"), Fast: true})
}

// removeAbandoned deletes the temporary clusters of test processes that have exited.
func removeAbandoned() {
	roots, _ := filepath.Glob(filepath.Join(os.TempDir(), "styrmin-pgtest-*"))
	for _, root := range roots {
		data, err := os.ReadFile(filepath.Join(root, "owner"))
		if err != nil {
			continue
		}
		pid, err := strconv.Atoi(strings.TrimSpace(string(data)))
		if err != nil || syscall.Kill(pid, 0) == nil || pid == os.Getpid() {
			continue
		}
		_ = os.RemoveAll(root)
	}
}

// ensureTemplate creates and migrates the template database unless a process did already.
func (s *testServer) ensureTemplate(ctx context.Context) error {
	conn, err := pgx.Connect(ctx, s.baseURL)
	if err != nil {
		return fmt.Errorf("connect to %s: %w", redact(s.baseURL), err)
	}
	defer conn.Close(ctx)
	// One advisory lock serialises template creation between parallel test processes.
	if _, err := conn.Exec(ctx, "SELECT pg_advisory_lock(7281965)"); err != nil {
		return fmt.Errorf("lock: %w", err)
	}
	defer conn.Exec(context.Background(), "SELECT pg_advisory_unlock(7281965)") //nolint:errcheck // the connection closes right after
	var version int
	if err := conn.QueryRow(ctx, "SELECT current_setting('server_version_num')::int").Scan(&version); err != nil {
		return fmt.Errorf("server version: %w", err)
	}
	if version >= 150000 {
		s.strategy = " STRATEGY FILE_COPY"
	}
	var exists bool
	if err := conn.QueryRow(ctx, "SELECT EXISTS (SELECT 1 FROM pg_database WHERE datname = $1)", s.template).Scan(&exists); err != nil {
		return fmt.Errorf("look up template: %w", err)
	}
	if exists {
		return nil
	}
	building := s.template + "_building"
	if _, err := conn.Exec(ctx, "DROP DATABASE IF EXISTS "+pgx.Identifier{building}.Sanitize()+" WITH (FORCE)"); err != nil {
		return fmt.Errorf("drop half-built template: %w", err)
	}
	if _, err := conn.Exec(ctx, "CREATE DATABASE "+pgx.Identifier{building}.Sanitize()); err != nil {
		return fmt.Errorf("create template: %w", err)
	}
	pool, err := db.Open(ctx, withDatabase(s.baseURL, building))
	if err != nil {
		return err
	}
	_, err = db.Migrate(ctx, pool)
	pool.Close()
	if err != nil {
		return err
	}
	if _, err := conn.Exec(ctx, "ALTER DATABASE "+pgx.Identifier{building}.Sanitize()+" RENAME TO "+pgx.Identifier{s.template}.Sanitize()); err != nil {
		return fmt.Errorf("finish template: %w", err)
	}
	return nil
}

func (s *testServer) exec(ctx context.Context, sql string) error {
	conn, err := pgx.Connect(ctx, s.baseURL)
	if err != nil {
		return err
	}
	defer conn.Close(ctx)
	_, err = conn.Exec(ctx, sql)
	return err
}

// migrationsDigest fingerprints the migration files, so a changed schema gets a new template.
func migrationsDigest() string {
	h := sha256.New()
	err := fs.WalkDir(db.Migrations(), ".", func(path string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		data, err := fs.ReadFile(db.Migrations(), path)
		if err != nil {
			return err
		}
		fmt.Fprintf(h, "%s\x00%d\x00", path, len(data))
		h.Write(data)
		return nil
	})
	if err != nil {
		panic(err) // embedded files are always readable
	}
	return hex.EncodeToString(h.Sum(nil))[:16]
}

// withDatabase returns base with its database name replaced.
func withDatabase(base, name string) string {
	u, err := url.Parse(base)
	if err != nil || u.Scheme == "" {
		// A keyword/value connection string: a later dbname wins.
		return base + " dbname=" + name
	}
	u.Path = "/" + name
	return u.String()
}

// redact hides a password in a URL for error messages.
func redact(raw string) string {
	u, err := url.Parse(raw)
	if err != nil || u.User == nil {
		return raw
	}
	return u.Redacted()
}
