package main

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/styrmin/styrmin/catalog"
	"github.com/styrmin/styrmin/db/dbtest"
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
	redis := filepath.Join("..", "..", "drivers", "catalog", "redis")

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
