package catalog

import (
	"archive/tar"
	"bytes"
	"fmt"
	"io/fs"
	"path"
	"testing"
	"unicode/utf8"

	"github.com/stretchr/testify/require"

	"github.com/styrmin/styrmin"
	"github.com/styrmin/styrmin/drivers"
)

// FuzzUnpack checks that Unpack, whatever the upload, never panics, refuses
// with an EINVALID error only, and never returns a bundle past the bundle
// limits; its seeds (hostile archives among them) run with every go test.
func FuzzUnpack(f *testing.F) {
	many := []entry{{name: "driver.styrmin.yml", body: "a"}}
	for i := range drivers.MaxBundleFiles {
		many = append(many, entry{name: fmt.Sprintf("d%d/", i), typeflag: tar.TypeDir})
	}
	for _, entries := range [][]entry{
		{{name: "driver.styrmin.yml", body: "apiVersion: styrmin.io/v1\n"}, {name: "chart/Chart.yaml", body: "name: x"}},
		{{name: "redis/", typeflag: tar.TypeDir}, {name: "./redis/driver.styrmin.yml", body: "a"}, {name: "redis/icon.svg", body: "<svg/>"}},
		{{name: "driver.styrmin.yml", body: "a"}, {name: "chart/../../etc/passwd", body: "x"}},
		{{name: "/etc/passwd", body: "x"}},
		{{name: "driver.styrmin.yml", typeflag: tar.TypeSymlink, linkname: "/etc/passwd"}},
		{{name: "a", body: "x"}, {name: "driver.styrmin.yml", typeflag: tar.TypeLink, linkname: "a"}},
		{{name: "driver.styrmin.yml", body: "a"}, {name: "chart/bad\xff.yaml", body: "x"}},
		{{name: "driver.styrmin.yml", body: "a"}, {name: "big", body: zeros(drivers.MaxBundleFileSize + 1)}},
		{{name: "driver.styrmin.yml", body: "a"}, {name: "a", body: zeros(drivers.MaxBundleFileSize)}, {name: "b", body: zeros(drivers.MaxBundleFileSize)}},
		{{name: "a/driver.styrmin.yml", body: "x"}, {name: "b/driver.styrmin.yml", body: "y"}},
		{{name: "driver.styrmin.yml", body: "x"}, {name: "./driver.styrmin.yml", body: "y"}},
		many,
	} {
		f.Add(tarGz(f, entries...))
	}
	f.Add([]byte("plain text"))
	f.Add([]byte{0x1f, 0x8b})
	f.Fuzz(func(t *testing.T, archive []byte) {
		fsys, root, err := Unpack(bytes.NewReader(archive))
		if err != nil {
			require.Equal(t, styrmin.EINVALID, styrmin.ErrorCode(err), "a refused archive is invalid input: %v", err)
			return
		}
		_, err = fs.Stat(fsys, path.Join(root, drivers.SpecFile))
		require.NoError(t, err, "the root holds the driver file")
		var files, total int64
		err = fs.WalkDir(fsys, ".", func(p string, e fs.DirEntry, err error) error {
			require.NoError(t, err)
			require.True(t, utf8.ValidString(p) && fs.ValidPath(p), "name %q", p)
			if e.IsDir() {
				return nil
			}
			data, err := fs.ReadFile(fsys, p)
			require.NoError(t, err)
			files++
			total += int64(len(data))
			require.LessOrEqual(t, int64(len(data)), int64(drivers.MaxBundleFileSize))
			return nil
		})
		require.NoError(t, err)
		require.LessOrEqual(t, files, int64(drivers.MaxBundleFiles))
		require.LessOrEqual(t, total, int64(drivers.MaxBundleSize))
	})
}
