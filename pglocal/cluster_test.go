package pglocal_test

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/jackc/pgx/v5"
	"github.com/stretchr/testify/require"

	"github.com/styrmin/styrmin/pglocal"
)

// tempRoot returns a temporary folder the postgres user can enter when the tests run as root.
func tempRoot(t *testing.T) string {
	t.Helper()
	root, err := os.MkdirTemp("", "pglocal-test-")
	require.NoError(t, err)
	t.Cleanup(func() { _ = os.RemoveAll(root) })
	require.NoError(t, os.Chmod(root, 0o711))
	return root
}

func exec(t *testing.T, url, sql string) error {
	t.Helper()
	ctx := context.Background()
	conn, err := pgx.Connect(ctx, url)
	if err != nil {
		return err
	}
	defer conn.Close(ctx)
	_, err = conn.Exec(ctx, sql)
	return err
}

func TestStartInitialisesReusesAndKeepsData(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	dir := filepath.Join(tempRoot(t), "data")

	first, err := pglocal.Start(ctx, pglocal.Options{Dir: dir, Fast: true})
	require.NoError(t, err)
	t.Cleanup(func() { _ = first.Stop() })
	require.FileExists(t, filepath.Join(dir, "PG_VERSION"))
	require.NoError(t, exec(t, first.URL("postgres"), "CREATE TABLE kept (x int)"))

	again, err := pglocal.Start(ctx, pglocal.Options{Dir: dir, Fast: true})
	require.NoError(t, err, "a running cluster is reused")
	require.NoError(t, again.Stop(), "stopping a reused cluster leaves it running")
	require.NoError(t, exec(t, first.URL("postgres"), "SELECT 1"))

	require.NoError(t, first.Stop())
	require.Error(t, exec(t, first.URL("postgres"), "SELECT 1"), "stopped")

	restarted, err := pglocal.Start(ctx, pglocal.Options{Dir: dir, Fast: true})
	require.NoError(t, err)
	t.Cleanup(func() { _ = restarted.Stop() })
	require.NoError(t, exec(t, restarted.URL("postgres"), "SELECT * FROM kept"), "the data survived the restart")
}

func TestURLUsesTheSocketInTheDataFolder(t *testing.T) {
	t.Parallel()
	dir := filepath.Join(tempRoot(t), "data")
	c, err := pglocal.Start(context.Background(), pglocal.Options{Dir: dir, Fast: true})
	require.NoError(t, err)
	t.Cleanup(func() { _ = c.Stop() })
	cfg, err := pgx.ParseConfig(c.URL("styrmin"))
	require.NoError(t, err)
	require.Equal(t, dir, cfg.Host)
	require.Equal(t, "styrmin", cfg.Database)
	require.Equal(t, "postgres", cfg.User)
	require.FileExists(t, filepath.Join(dir, ".s.PGSQL.5432"))
}

func TestStartRefusesOverlongSocketPaths(t *testing.T) {
	t.Parallel()
	dir := filepath.Join(t.TempDir(), strings.Repeat("x", 120))
	_, err := pglocal.Start(context.Background(), pglocal.Options{Dir: dir})
	require.ErrorContains(t, err, "move the checkout to a shorter path")
}

func TestStartExplainsAFolderThePostgresUserCannotEnter(t *testing.T) {
	t.Parallel()
	if os.Geteuid() != 0 {
		t.Skip("only root runs PostgreSQL as another user")
	}
	private := t.TempDir() // mode 0700, owned by root
	_, err := pglocal.Start(context.Background(), pglocal.Options{Dir: filepath.Join(private, "data")})
	require.ErrorContains(t, err, "the postgres user cannot enter")
}

func TestBinDirFindsTheServer(t *testing.T) {
	t.Parallel()
	bin, err := pglocal.BinDir()
	require.NoError(t, err)
	require.FileExists(t, filepath.Join(bin, "initdb"))
	require.FileExists(t, filepath.Join(bin, "postgres"))
}

func TestStartDatabaseCreatesTheDatabaseOnceAndStopsOnlyWhatItStarted(t *testing.T) {
	t.Parallel()
	ctx := t.Context()
	dir := filepath.Join(tempRoot(t), "data")

	url, stop, err := pglocal.StartDatabase(ctx, pglocal.Options{Dir: dir, Fast: true}, "styrmin")
	require.NoError(t, err)
	t.Cleanup(func() { _ = stop() })
	cfg, err := pgx.ParseConfig(url)
	require.NoError(t, err)
	require.Equal(t, "styrmin", cfg.Database)
	require.NoError(t, exec(t, url, "CREATE TABLE kept (x int)"))

	again, stopAgain, err := pglocal.StartDatabase(ctx, pglocal.Options{Dir: dir, Fast: true}, "styrmin")
	require.NoError(t, err, "a running cluster and an existing database are reused")
	require.Equal(t, url, again)
	require.NoError(t, stopAgain(), "stopping a reused cluster leaves it running")
	require.NoError(t, exec(t, url, "SELECT * FROM kept"), "the database was not created again")

	require.NoError(t, stop())
	require.Error(t, exec(t, url, "SELECT 1"), "stopped")
}

func TestStartTemporaryLeavesNothingBehind(t *testing.T) {
	t.Parallel()
	root := tempRoot(t)

	url, stop, err := pglocal.StartTemporary(t.Context(), root, "styrmin")
	require.NoError(t, err)
	require.NoError(t, exec(t, url, "CREATE TABLE scratch (x int)"))
	cfg, err := pgx.ParseConfig(url)
	require.NoError(t, err)
	require.Equal(t, "styrmin", cfg.Database)
	require.True(t, strings.HasPrefix(cfg.Host, root+string(filepath.Separator)), "the cluster lives in a folder of %s: %s", root, cfg.Host)

	require.NoError(t, stop())
	require.Error(t, exec(t, url, "SELECT 1"), "stopped")
	left, err := os.ReadDir(root)
	require.NoError(t, err)
	require.Empty(t, left, "the cluster's folder is removed")
}

func TestStartTemporaryRemovesItsFolderWhenTheClusterCannotStart(t *testing.T) {
	t.Parallel()
	root := filepath.Join(tempRoot(t), strings.Repeat("x", 100))
	require.NoError(t, os.Mkdir(root, 0o711))

	_, _, err := pglocal.StartTemporary(t.Context(), root, "styrmin")
	require.ErrorContains(t, err, "move the checkout to a shorter path")
	left, err := os.ReadDir(root)
	require.NoError(t, err)
	require.Empty(t, left, "nothing is left on disk")
}
