package catalog_test

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"testing/fstest"

	"github.com/stretchr/testify/require"

	"github.com/styrmin/styrmin"
	"github.com/styrmin/styrmin/catalog"
	"github.com/styrmin/styrmin/db/dbtest"
	"github.com/styrmin/styrmin/drivers"
	"github.com/styrmin/styrmin/drivers/bundled"
	"github.com/styrmin/styrmin/release"
)

// driverYAML is a small valid driver file; %s is its spec.version.
const driverYAML = `apiVersion: styrmin.io/v1
kind: Driver
metadata:
  name: tiny
  labels: {category: test}
spec:
  version: %s
  supported_versions: ">=1.0.0"
  info:
    title: Tiny
    description: |
      A tiny **test** driver.

      Second paragraph.
  helm:
    main:
      location: ./chart
      version: 1.0.0
  parameters:
    - name: size
      type: integer
      default: 3
      min: 1
`

// tinyBundle returns a bundle folder "tiny" holding version with the given README.
func tinyBundle(version, readme string) fstest.MapFS {
	return fstest.MapFS{
		"tiny/driver.styrmin.yml": {Data: fmt.Appendf(nil, driverYAML, version)},
		"tiny/README.md":          {Data: []byte(readme)},
		"tiny/chart/Chart.yaml":   {Data: []byte("apiVersion: v2\nname: tiny\nversion: 1.0.0\n")},
	}
}

// setup returns a catalogue on a fresh database.
func setup(t *testing.T) *catalog.Catalog {
	t.Helper()
	return catalog.New(dbtest.New(t), release.ChartFetcher{})
}

func TestImportBundledIsIdempotent(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	c := setup(t)

	first, err := c.ImportBundled(ctx, bundled.Bundles(), bundled.Names())
	require.NoError(t, err)
	require.Len(t, first, len(bundled.Names()))
	for _, res := range first {
		require.True(t, res.Created, "%s is new", res.Name)
	}

	again, err := c.ImportBundled(ctx, bundled.Bundles(), bundled.Names())
	require.NoError(t, err, "importing identical bundles again is a no-op")
	for _, res := range again {
		require.False(t, res.Created, "%s already stored", res.Name)
	}

	entries, err := c.List(ctx)
	require.NoError(t, err)
	require.Len(t, entries, len(bundled.Names()))
}

func TestImportStoresEverythingTheBundleHolds(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	c := setup(t)
	for _, name := range bundled.Names() {
		want, err := drivers.LoadBundle(t.Context(), bundled.Bundles(), name)
		require.NoError(t, err)
		_, err = c.Import(ctx, want, catalog.ByBundled)
		require.NoError(t, err)

		v, err := c.Get(ctx, want.Driver.Metadata.Name, want.Driver.Spec.Version)
		require.NoError(t, err)
		require.Equal(t, want.Driver, v.Driver, "the stored spec decodes to the imported driver")
		require.Equal(t, want.Readme, v.Readme)
		require.Equal(t, want.Digest(), v.Digest)
		require.Equal(t, catalog.ByBundled, v.CreatedBy)
		require.Equal(t, want.Icon != nil, v.HasIcon)
		if want.Icon != nil {
			icon, err := c.Icon(ctx, want.Driver.Metadata.Name, want.Driver.Spec.Version)
			require.NoError(t, err)
			require.Equal(t, want.Icon.ContentType, icon.ContentType)
			require.Equal(t, want.Icon.Data, icon.Data)
		}

		got, err := c.Bundle(ctx, want.Driver.Metadata.Name, want.Driver.Spec.Version)
		require.NoError(t, err)
		require.Equal(t, want.Digest(), got.Digest(), "the stored archive holds the same bundle")
	}
}

func TestImportRefusesChangedContentUnderSameVersion(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	c := setup(t)

	res, err := c.ImportFS(ctx, tinyBundle("1.0.0", "first"), "tiny", "alice")
	require.NoError(t, err)
	require.True(t, res.Created)

	res, err = c.ImportFS(ctx, tinyBundle("1.0.0", "first"), "tiny", "bob")
	require.NoError(t, err)
	require.False(t, res.Created, "identical content is a no-op")

	_, err = c.ImportFS(ctx, tinyBundle("1.0.0", "changed README"), "tiny", "bob")
	require.Error(t, err)
	require.Equal(t, styrmin.ECONFLICT, styrmin.ErrorCode(err))
	require.Contains(t, styrmin.ErrorMessage(err), "Driver tiny version 1.0.0 is already in the catalogue with different content")
	require.Contains(t, styrmin.ErrorMessage(err), "raise spec.version")

	v, err := c.Get(ctx, "tiny", "1.0.0")
	require.NoError(t, err)
	require.Equal(t, "first", v.Readme, "the stored version is unchanged")
	require.Equal(t, "alice", v.CreatedBy)
}

func TestImportRefusesInvalidBundleWithProblems(t *testing.T) {
	t.Parallel()
	c := setup(t)
	fsys := fstest.MapFS{"bad/driver.styrmin.yml": {Data: []byte("apiVersion: styrmin.io/v1\nkind: Driver\nmetadata:\n  name: Bad_Name\n")}}

	_, err := c.ImportFS(context.Background(), fsys, "bad", "alice")
	require.Error(t, err)
	require.Equal(t, styrmin.EINVALID, styrmin.ErrorCode(err))
	var ps drivers.Problems
	require.ErrorAs(t, err, &ps)
	require.NotEmpty(t, ps)
	require.Equal(t, 4, findProblem(t, ps, "metadata.name").Line, "problems keep their lines")

	entries, err := c.List(context.Background())
	require.NoError(t, err)
	require.Empty(t, entries)
}

// findProblem returns the problem about field.
func findProblem(t *testing.T, ps drivers.Problems, field string) drivers.Problem {
	t.Helper()
	for _, p := range ps {
		if p.Field == field {
			return p
		}
	}
	t.Fatalf("no problem about %s in %v", field, ps)
	return drivers.Problem{}
}

func TestListShowsNewestVersionBySemver(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	c := setup(t)
	for _, v := range []string{"1.2.0", "1.10.0", "1.10.1-rc.1", "1.9.0"} {
		_, err := c.ImportFS(ctx, tinyBundle(v, ""), "tiny", "alice")
		require.NoError(t, err)
	}

	entries, err := c.List(ctx)
	require.NoError(t, err)
	require.Len(t, entries, 1)
	require.Equal(t, catalog.Entry{
		Name: "tiny", Version: "1.10.1-rc.1", Title: "Tiny", Summary: "A tiny test driver.",
		Labels: map[string]string{"category": "test"}, Versions: 4, All: []string{"1.2.0", "1.9.0", "1.10.0", "1.10.1-rc.1"},
	}, entries[0])
	require.Equal(t, "1.10.0", entries[0].UpdateFor("1.9.0"), "a release is offered, not the newer pre-release")

	versions, err := c.Versions(ctx, "tiny")
	require.NoError(t, err)
	require.Equal(t, []string{"1.10.1-rc.1", "1.10.0", "1.9.0", "1.2.0"}, versions)
	refs, err := c.VersionRefs(ctx, "tiny")
	require.NoError(t, err)
	require.Len(t, refs, len(versions))
	for i, r := range refs {
		require.Equal(t, versions[i], r.Version)
		v, err := c.Get(ctx, "tiny", r.Version)
		require.NoError(t, err)
		require.Equal(t, v.Digest, r.Digest, "each version comes with its digest")
	}
}

func TestMissingDriverIsNotFound(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	c := setup(t)
	_, err := c.Versions(ctx, "nope")
	require.Equal(t, styrmin.ENOTFOUND, styrmin.ErrorCode(err))
	_, err = c.Get(ctx, "nope", "1.0.0")
	require.Equal(t, styrmin.ENOTFOUND, styrmin.ErrorCode(err))
	_, err = c.Icon(ctx, "nope", "1.0.0")
	require.Equal(t, styrmin.ENOTFOUND, styrmin.ErrorCode(err))
	_, err = c.Bundle(ctx, "nope", "1.0.0")
	require.Equal(t, styrmin.ENOTFOUND, styrmin.ErrorCode(err))
}

func TestImportArchive(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	c := setup(t)
	files := map[string][]byte{}
	for name, f := range tinyBundle("2.0.0", "readme") {
		files[name] = f.Data
	}
	archive, err := catalog.Pack(files)
	require.NoError(t, err)

	res, err := c.ImportArchive(ctx, bytes.NewReader(archive), catalog.ArchiveImport{By: "alice"})
	require.NoError(t, err)
	require.Equal(t, catalog.Imported{Name: "tiny", Version: "2.0.0", Created: true}, res)
}

func TestImportArchiveFromASourceMustHoldTheVersionOfItsTag(t *testing.T) {
	t.Parallel()
	ctx := t.Context()
	c := setup(t)
	archive, err := catalog.Pack(tinyFiles("2.0.0"))
	require.NoError(t, err)
	from := catalog.ArchiveImport{By: "source acme", Origin: catalog.Origin{Source: "acme", SignedBy: "alice"}}

	from.Tag = "2.0.1"
	res, err := c.ImportArchive(ctx, bytes.NewReader(archive), from)
	require.Equal(t, styrmin.EINVALID, styrmin.ErrorCode(err), "%v", err)
	require.Equal(t, "the tag 2.0.1 holds version 2.0.0 of tiny; a tag must be the version it holds", styrmin.ErrorMessage(err))
	require.Equal(t, catalog.Imported{Name: "tiny", Version: "2.0.0"}, res, "a refused archive still names what it holds, for the source's record")
	_, err = c.Get(ctx, "tiny", "2.0.0")
	require.Equal(t, styrmin.ENOTFOUND, styrmin.ErrorCode(err), "a tag that lies about its version imports nothing")

	from.Tag = "2.0.0"
	res, err = c.ImportArchive(ctx, bytes.NewReader(archive), from)
	require.NoError(t, err)
	require.Equal(t, catalog.Imported{Name: "tiny", Version: "2.0.0", Created: true}, res)
	v, err := c.Get(ctx, "tiny", "2.0.0")
	require.NoError(t, err)
	require.Equal(t, catalog.Origin{Source: "acme", SignedBy: "alice"}, v.Origin)
	require.Equal(t, "source acme", v.CreatedBy)

	changed := tinyFiles("2.0.0")
	changed["README.md"] = []byte("changed")
	other, err := catalog.Pack(changed)
	require.NoError(t, err)
	res, err = c.ImportArchive(ctx, bytes.NewReader(other), catalog.ArchiveImport{By: "bob"})
	require.Equal(t, styrmin.ECONFLICT, styrmin.ErrorCode(err), "an upload without a tag is not checked against one, but a version never changes")
	require.Equal(t, catalog.Imported{Name: "tiny", Version: "2.0.0"}, res)
}

func TestImportArchiveRefusesABundleThatBreaksTheContractWithItsProblems(t *testing.T) {
	t.Parallel()
	archive, err := catalog.Pack(map[string][]byte{"driver.styrmin.yml": []byte("apiVersion: styrmin.io/v1\nkind: Driver\nmetadata:\n  name: Bad_Name\n")})
	require.NoError(t, err)
	res, err := setup(t).ImportArchive(t.Context(), bytes.NewReader(archive), catalog.ArchiveImport{By: "alice", Tag: "1.0.0"})
	require.Equal(t, styrmin.EINVALID, styrmin.ErrorCode(err), "%v", err)
	var ps drivers.Problems
	require.ErrorAs(t, err, &ps, "the upload page lists each problem with its line")
	require.Equal(t, 4, findProblem(t, ps, "metadata.name").Line)
	require.Equal(t, catalog.Imported{}, res, "nothing loaded, so nothing named")
}

func TestImportDirImportsEveryBundleFolder(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	c := setup(t)
	dir := t.TempDir()
	writeFolder(t, dir, tinyBundle("3.0.0", ""))
	require.NoError(t, os.Mkdir(filepath.Join(dir, "not-a-bundle"), 0o755))
	require.NoError(t, os.WriteFile(filepath.Join(dir, "notes.txt"), []byte("x"), 0o644))

	res, err := c.ImportDir(ctx, dir, catalog.RefuseChanges)
	require.NoError(t, err)
	require.Equal(t, []catalog.Imported{{Name: "tiny", Version: "3.0.0", Created: true}}, res)
}

// tinyFiles returns the files of the tiny bundle at version, at the archive's top.
func tinyFiles(version string) map[string][]byte {
	files := map[string][]byte{}
	for name, f := range tinyBundle(version, "") {
		files[strings.TrimPrefix(name, "tiny/")] = f.Data
	}
	return files
}

func TestArchiveAndLoaderShareTheBundleLimits(t *testing.T) {
	t.Parallel()
	tiny := 0 // the size of the tiny bundle's own files
	for _, data := range tinyFiles("1.0.0") {
		tiny += len(data)
	}
	tests := []struct {
		name  string
		sizes []int // sizes of the files added to the tiny bundle
		ok    bool
	}{
		{"at the limits", []int{drivers.MaxBundleFileSize, drivers.MaxBundleSize - drivers.MaxBundleFileSize - tiny}, true},
		{"four files of 15.9 MiB", []int{159 << 20 / 10, 159 << 20 / 10, 159 << 20 / 10, 159 << 20 / 10}, false},
		{"one byte past the total", []int{drivers.MaxBundleFileSize, drivers.MaxBundleSize - drivers.MaxBundleFileSize - tiny + 1}, false},
		{"one byte past the file size", []int{drivers.MaxBundleFileSize + 1}, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			files := tinyFiles("1.0.0")
			for i, size := range tt.sizes {
				files[fmt.Sprintf("data/%d.bin", i)] = make([]byte, size)
			}
			archive, err := catalog.Pack(files)
			require.NoError(t, err)
			folder := fstest.MapFS{}
			for name, data := range files {
				folder[name] = &fstest.MapFile{Data: data}
			}
			_, loadErr := drivers.LoadBundle(t.Context(), folder, ".")
			_, importErr := setup(t).ImportArchive(t.Context(), bytes.NewReader(archive), catalog.ArchiveImport{By: "alice"})
			if tt.ok {
				require.NoError(t, loadErr)
				require.NoError(t, importErr)
				return
			}
			var ps drivers.Problems
			require.ErrorAs(t, loadErr, &ps, "the loader refuses it as a problem of the bundle")
			require.Equal(t, styrmin.EINVALID, styrmin.ErrorCode(importErr), "the upload is refused as invalid: %v", importErr)
		})
	}
}

func TestImportArchiveRefusesNamesThatAreNotUTF8(t *testing.T) {
	t.Parallel()
	files := tinyFiles("1.0.0")
	files["chart/bad\xff.yaml"] = []byte("a: 1\n")
	archive, err := catalog.Pack(files)
	require.NoError(t, err)
	_, err = setup(t).ImportArchive(t.Context(), bytes.NewReader(archive), catalog.ArchiveImport{By: "alice"})
	require.Equal(t, styrmin.EINVALID, styrmin.ErrorCode(err), "%v", err)
	require.Contains(t, styrmin.ErrorMessage(err), `entry name "chart/bad\xff.yaml" is not UTF-8`)
}

func TestBundleReadsAStoredVersionWithoutCheckingItAgain(t *testing.T) {
	// Not parallel: it takes python3 out of PATH.
	ctx := t.Context()
	c := setup(t)
	want, err := drivers.LoadBundle(ctx, bundled.Bundles(), "postgresql")
	require.NoError(t, err)
	require.NotEmpty(t, want.Driver.Spec.Actions, "the bundle has actions, which a check runs Python on")
	_, err = c.Import(ctx, want, catalog.ByBundled)
	require.NoError(t, err)

	t.Setenv("PATH", t.TempDir())
	_, err = drivers.LoadBundle(ctx, bundled.Bundles(), "postgresql")
	require.ErrorContains(t, err, "python3 not found", "a check would need python3")
	got, err := c.Bundle(ctx, want.Driver.Metadata.Name, want.Driver.Spec.Version)
	require.NoError(t, err)
	require.Equal(t, want.Digest(), got.Digest())
	require.Equal(t, want.Driver, got.Driver)
	require.Equal(t, want.Chart.Metadata, got.Chart.Metadata)
}

// TestListSeesImportsFromElsewhere: List keeps its entries between calls, so
// it must notice a version imported by another process (here another
// Catalog on the same database).
func TestListSeesImportsFromElsewhere(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	pool := dbtest.New(t)
	web, cli := catalog.New(pool, release.ChartFetcher{}), catalog.New(pool, release.ChartFetcher{})

	entries, err := web.List(ctx)
	require.NoError(t, err)
	require.Empty(t, entries)
	for _, v := range []string{"1.0.0", "1.1.0"} {
		_, err = cli.ImportFS(ctx, tinyBundle(v, ""), "tiny", "alice")
		require.NoError(t, err)
		entries, err = web.List(ctx)
		require.NoError(t, err)
		require.Len(t, entries, 1)
		require.Equal(t, v, entries[0].Version)
	}
	again, err := web.List(ctx)
	require.NoError(t, err)
	require.Equal(t, entries, again)
	require.Equal(t, 2, again[0].Versions)
}

// TestImportDirRefusesABadFolderAndImportsTheOthers: a folder that is
// invalid, or changed without a new version, is refused with its reason, and
// the import goes on (the server starts with the others).
func TestImportDirRefusesABadFolderAndImportsTheOthers(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	c := setup(t)
	require.Empty(t, c.Refused())
	dir := t.TempDir()
	writeFolder(t, dir, tinyBundle("3.0.0", ""))
	writeFolder(t, dir, fstest.MapFS{"broken/driver.styrmin.yml": {Data: []byte("apiVersion: styrmin.io/v0\n")}})

	res, err := c.ImportDir(ctx, dir, catalog.RefuseChanges)
	require.NoError(t, err)
	require.Equal(t, []catalog.Imported{{Name: "tiny", Version: "3.0.0", Created: true}}, res)
	refused := c.Refused()
	require.Len(t, refused, 1)
	require.Equal(t, filepath.Join(dir, "broken"), refused[0].Folder)
	require.Contains(t, refused[0].Reason, "driver.styrmin.yml:1:")

	writeFolder(t, dir, tinyBundle("3.0.0", "edited without a new version"))
	res, err = c.ImportDir(ctx, dir, catalog.RefuseChanges)
	require.NoError(t, err)
	require.Empty(t, res)
	refused = c.Refused()
	require.Len(t, refused, 2)
	require.Equal(t, filepath.Join(dir, "tiny"), refused[1].Folder)
	require.Contains(t, refused[1].Reason, "Driver tiny version 3.0.0 is already in the catalogue with different content")
}
