package catalog_test

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"testing/fstest"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/styrmin/styrmin/catalog"
)

// writeFolder writes files (slash paths) under dir.
func writeFolder(t *testing.T, dir string, files fstest.MapFS) {
	t.Helper()
	for name, f := range files {
		path := filepath.Join(dir, filepath.FromSlash(name))
		require.NoError(t, os.MkdirAll(filepath.Dir(path), 0o755))
		require.NoError(t, os.WriteFile(path, f.Data, 0o644))
	}
}

// TestAChangedFolderBecomesADevelopmentBuildOfItsVersion: with dev builds,
// a folder edited without a new version is imported as 3.0.0+dev.1, then
// +dev.2 at the next edit; an unchanged folder imports nothing; the stored
// bundle names its build's version; the catalogue lists the newest build
// first; nothing already imported changes.
func TestAChangedFolderBecomesADevelopmentBuildOfItsVersion(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	c := setup(t)
	dir := t.TempDir()
	writeFolder(t, dir, tinyBundle("3.0.0", ""))
	res, err := c.ImportDir(ctx, dir, catalog.ImportDevBuilds)
	require.NoError(t, err)
	require.Equal(t, []catalog.Imported{{Name: "tiny", Version: "3.0.0", Created: true}}, res, "a new version is imported as itself")

	writeFolder(t, dir, tinyBundle("3.0.0", "first edit"))
	for _, created := range []bool{true, false} {
		res, err = c.ImportDir(ctx, dir, catalog.ImportDevBuilds)
		require.NoError(t, err)
		require.Empty(t, c.Refused())
		require.Equal(t, []catalog.Imported{{Name: "tiny", Version: "3.0.0+dev.1", Created: created}}, res)
	}
	writeFolder(t, dir, tinyBundle("3.0.0", "second edit"))
	res, err = c.ImportDir(ctx, dir, catalog.ImportDevBuilds)
	require.NoError(t, err)
	require.Equal(t, []catalog.Imported{{Name: "tiny", Version: "3.0.0+dev.2", Created: true}}, res)

	b, err := c.Bundle(ctx, "tiny", "3.0.0+dev.2")
	require.NoError(t, err)
	require.Equal(t, "3.0.0+dev.2", b.Driver.Spec.Version, "the stored driver file names the build")
	require.Equal(t, "second edit", b.Readme)
	released, err := c.Bundle(ctx, "tiny", "3.0.0")
	require.NoError(t, err)
	require.Empty(t, released.Readme, "the released version is as imported")

	versions, err := c.Versions(ctx, "tiny")
	require.NoError(t, err)
	require.Equal(t, []string{"3.0.0+dev.2", "3.0.0+dev.1", "3.0.0"}, versions, "newest first")

	writeFolder(t, dir, tinyBundle("3.0.0", "third edit"))
	res, err = c.ImportDir(ctx, dir, catalog.RefuseChanges)
	require.NoError(t, err)
	require.Empty(t, res, "without dev builds a change is refused")
	require.Len(t, c.Refused(), 1)
}

// TestADevelopmentBuildRewritesOnlyTheVersion: the driver file keeps its
// comments and layout; a quoted version is replaced whole.
func TestADevelopmentBuildRewritesOnlyTheVersion(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	c := setup(t)
	dir := t.TempDir()
	files := tinyBundle("3.0.0", "")
	spec := strings.Replace(string(files["tiny/driver.styrmin.yml"].Data), "version: 3.0.0", "version: '3.0.0' # the driver's own", 1)
	files["tiny/driver.styrmin.yml"] = &fstest.MapFile{Data: []byte("# a comment on top\n" + spec)}
	writeFolder(t, dir, files)
	_, err := c.ImportDir(ctx, dir, catalog.ImportDevBuilds)
	require.NoError(t, err)
	writeFolder(t, dir, fstest.MapFS{"tiny/README.md": {Data: []byte("edited")}})
	_, err = c.ImportDir(ctx, dir, catalog.ImportDevBuilds)
	require.NoError(t, err)

	b, err := c.Bundle(ctx, "tiny", "3.0.0+dev.1")
	require.NoError(t, err)
	want := "# a comment on top\n" + strings.Replace(spec, "'3.0.0'", `"3.0.0+dev.1"`, 1)
	require.Equal(t, want, string(b.Files["driver.styrmin.yml"]))
}

func TestDevBuildOf(t *testing.T) {
	t.Parallel()
	for version, want := range map[string]struct {
		base string
		n    int
		ok   bool
	}{
		"1.2.0":             {"1.2.0", 0, false},
		"1.2.0+dev.3":       {"1.2.0", 3, true},
		"1.2.0-rc.1+dev.12": {"1.2.0-rc.1", 12, true},
		"1.2.0+dev.x":       {"1.2.0+dev.x", 0, false},
		"1.2.0+dev.0":       {"1.2.0+dev.0", 0, false},
		"1.2.0+build.7":     {"1.2.0+build.7", 0, false},
	} {
		base, n, ok := catalog.DevBuildOf(version)
		require.Equal(t, want.base, base, version)
		require.Equal(t, want.n, n, version)
		require.Equal(t, want.ok, ok, version)
	}
}

// TestWatchDirImportsAFolderWhenItChanges: the watch imports nothing while
// the folder stays as it is, and a dev build once a file changes. An import
// may also find nothing new (the watch can look while the files are being
// written), so the test waits for the one that names the dev build.
func TestWatchDirImportsAFolderWhenItChanges(t *testing.T) {
	t.Parallel()
	ctx, cancel := context.WithCancel(context.Background())
	c := setup(t)
	dir := t.TempDir()
	writeFolder(t, dir, tinyBundle("3.0.0", ""))
	_, err := c.ImportDir(ctx, dir, catalog.ImportDevBuilds)
	require.NoError(t, err)

	imports := make(chan []catalog.Imported, 10)
	done := make(chan struct{})
	go func() {
		defer close(done)
		c.WatchDir(ctx, dir, catalog.ImportDevBuilds, 10*time.Millisecond, func(res []catalog.Imported, err error) {
			if err != nil {
				t.Error(err)
			}
			imports <- res
		})
	}()
	t.Cleanup(func() {
		cancel()
		<-done
	})
	select {
	case res := <-imports:
		t.Fatalf("an unchanged folder was imported: %v", res)
	case <-time.After(100 * time.Millisecond):
	}
	writeFolder(t, dir, tinyBundle("3.0.0", "edited"))
	for {
		select {
		case res := <-imports:
			if len(res) == 0 {
				continue
			}
			require.Equal(t, []catalog.Imported{{Name: "tiny", Version: "3.0.0+dev.1", Created: true}}, res)
			return
		case <-time.After(time.Minute):
			t.Fatal("the edited folder was not imported within a minute")
		}
	}
}
