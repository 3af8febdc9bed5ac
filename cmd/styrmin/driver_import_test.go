package main

import (
	"bytes"
	"context"
	"io"
	"log/slog"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/styrmin/styrmin/catalog"
	"github.com/styrmin/styrmin/db/dbtest"
	"github.com/styrmin/styrmin/drivers/bundled"
	"github.com/styrmin/styrmin/release"
)

// runDriverImport runs `styrmin driver import` against databaseURL and returns its output.
func runDriverImport(t *testing.T, databaseURL string, paths ...string) (stdout, stderr string, err error) {
	t.Helper()
	cmd := newDriverImportCmd()
	var out, errOut bytes.Buffer
	cmd.SetOut(&out)
	cmd.SetErr(&errOut)
	cmd.SetArgs(append([]string{"--database-url", databaseURL}, paths...))
	err = cmd.ExecuteContext(context.Background())
	return out.String(), errOut.String(), err
}

func TestDriverImportCommand(t *testing.T) {
	t.Parallel()
	url := dbtest.NewURL(t)
	redis := filepath.Join("..", "..", "drivers", "bundled", "redis")

	stdout, stderr, err := runDriverImport(t, url, redis)
	require.NoError(t, err, stderr)
	require.Regexp(t, `^imported redis \S+\n$`, stdout)

	stdout, _, err = runDriverImport(t, url, redis)
	require.NoError(t, err)
	require.Regexp(t, `^unchanged redis \S+ \(already in the catalogue with the same content\)\n$`, stdout)

	archive, err := catalog.Pack(map[string][]byte{"driver.styrmin.yml": []byte("apiVersion: styrmin.io/v1\nkind: Driver\nmetadata:\n  name: Broken\n")})
	require.NoError(t, err)
	broken := filepath.Join(t.TempDir(), "broken.tar.gz")
	require.NoError(t, os.WriteFile(broken, archive, 0o644))

	stdout, stderr, err = runDriverImport(t, url, broken, "no/such/folder", redis)
	require.ErrorIs(t, err, errSilent, "a failed path fails the command")
	require.Contains(t, stdout, "unchanged redis", "later paths are still imported")
	require.Contains(t, stderr, broken+": The driver bundle breaks the driver contract")
	require.Contains(t, stderr, "driver.styrmin.yml:4:", "problems name their line")
	require.Contains(t, stderr, "no/such/folder: Cannot read no/such/folder")
}

func TestDriverImportNeedsADatabase(t *testing.T) {
	t.Setenv("STYRMIN_DATABASE_URL", "")
	_, _, err := runDriverImport(t, "", "x")
	require.ErrorContains(t, err, "STYRMIN_DATABASE_URL")
}

func TestImportDriversAtStart(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	pool := dbtest.New(t)
	c := catalog.New(pool, release.ChartFetcher{})
	dir := t.TempDir()
	tiny := filepath.Join(dir, "tiny")
	require.NoError(t, os.MkdirAll(filepath.Join(tiny, "chart"), 0o755))
	require.NoError(t, os.WriteFile(filepath.Join(tiny, "chart", "Chart.yaml"), []byte("apiVersion: v2\nname: tiny\nversion: 1.0.0\n"), 0o644))
	require.NoError(t, os.WriteFile(filepath.Join(tiny, "driver.styrmin.yml"), []byte(`apiVersion: styrmin.io/v1
kind: Driver
metadata:
  name: tiny
spec:
  version: 0.1.0
  supported_versions: ">=1.0.0"
  helm:
    main:
      location: ./chart
      version: 1.0.0
`), 0o644))
	logger := slog.New(slog.NewTextHandler(io.Discard, nil))

	for range 2 { // the second start finds everything in place
		require.NoError(t, importDrivers(ctx, c, dir, catalog.RefuseChanges, logger))
	}
	entries, err := c.List(ctx)
	require.NoError(t, err)
	names := []string{}
	for _, e := range entries {
		names = append(names, e.Name)
	}
	require.ElementsMatch(t, append(bundled.Names(), "tiny"), names)
}
