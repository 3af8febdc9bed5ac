package catalog

import (
	"archive/tar"
	"bytes"
	"compress/gzip"
	"fmt"
	"io/fs"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
	"github.com/styrmin/styrmin"
	"github.com/styrmin/styrmin/drivers"
)

// entry is one member of a test archive.
type entry struct {
	name     string
	typeflag byte
	body     string
	linkname string
}

// tarGz builds a gzip-compressed tar archive from entries.
func tarGz(t testing.TB, entries ...entry) []byte {
	t.Helper()
	var buf bytes.Buffer
	gz := gzip.NewWriter(&buf)
	tw := tar.NewWriter(gz)
	for _, e := range entries {
		typ := e.typeflag
		if typ == 0 {
			typ = tar.TypeReg
		}
		hdr := &tar.Header{Name: e.name, Typeflag: typ, Mode: 0o644, Linkname: e.linkname}
		if typ == tar.TypeReg {
			hdr.Size = int64(len(e.body))
		}
		require.NoError(t, tw.WriteHeader(hdr))
		if typ == tar.TypeReg {
			_, err := tw.Write([]byte(e.body))
			require.NoError(t, err)
		}
	}
	require.NoError(t, tw.Close())
	require.NoError(t, gz.Close())
	return buf.Bytes()
}

// zeros is a string of n zero bytes: a large file that compresses well.
func zeros(n int) string {
	return strings.Repeat("\x00", n)
}

func TestUnpack(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name     string
		archive  func(t *testing.T) []byte
		wantRoot string
		wantFile string
		wantErr  string
	}{
		{
			name: "bundle at the top",
			archive: func(t *testing.T) []byte {
				return tarGz(t, entry{name: "driver.styrmin.yml", body: "a"}, entry{name: "chart/Chart.yaml", body: "b"})
			},
			wantRoot: ".",
			wantFile: "chart/Chart.yaml",
		},
		{
			name: "bundle in one top-level folder",
			archive: func(t *testing.T) []byte {
				return tarGz(t,
					entry{name: "redis/", typeflag: tar.TypeDir},
					entry{name: "./redis/driver.styrmin.yml", body: "a"},
					entry{name: "redis/icon.svg", body: "b"})
			},
			wantRoot: "redis",
			wantFile: "redis/icon.svg",
		},
		{
			name:    "not gzip",
			archive: func(*testing.T) []byte { return []byte("plain text") },
			wantErr: "not gzip-compressed",
		},
		{
			name: "path traversal",
			archive: func(t *testing.T) []byte {
				return tarGz(t, entry{name: "driver.styrmin.yml", body: "a"}, entry{name: "chart/../../etc/passwd", body: "x"})
			},
			wantErr: "points outside the bundle",
		},
		{
			name:    "absolute path",
			archive: func(t *testing.T) []byte { return tarGz(t, entry{name: "/etc/passwd", body: "x"}) },
			wantErr: "absolute path",
		},
		{
			name: "symbolic link",
			archive: func(t *testing.T) []byte {
				return tarGz(t, entry{name: "driver.styrmin.yml", typeflag: tar.TypeSymlink, linkname: "/etc/passwd"})
			},
			wantErr: "not a regular file or folder",
		},
		{
			name: "hard link",
			archive: func(t *testing.T) []byte {
				return tarGz(t, entry{name: "a", body: "x"}, entry{name: "driver.styrmin.yml", typeflag: tar.TypeLink, linkname: "a"})
			},
			wantErr: "not a regular file or folder",
		},
		{
			name: "file too large",
			archive: func(t *testing.T) []byte {
				return tarGz(t, entry{name: "driver.styrmin.yml", body: "a"}, entry{name: "chart.tgz", body: zeros(drivers.MaxBundleFileSize + 1)})
			},
			wantErr: `"chart.tgz": the file is larger than 8 MiB`,
		},
		{
			name: "total too large",
			archive: func(t *testing.T) []byte {
				return tarGz(t, entry{name: "driver.styrmin.yml", body: "a"}, entry{name: "a", body: zeros(drivers.MaxBundleFileSize)},
					entry{name: "b", body: zeros(drivers.MaxBundleFileSize)})
			},
			wantErr: "the bundle's files add up to more than 16 MiB",
		},
		{
			name: "too many entries",
			archive: func(t *testing.T) []byte {
				entries := []entry{{name: "driver.styrmin.yml", body: "a"}}
				for i := range drivers.MaxBundleFiles {
					entries = append(entries, entry{name: fmt.Sprintf("d%d/", i), typeflag: tar.TypeDir})
				}
				return tarGz(t, entries...)
			},
			wantErr: "more than 2000 entries",
		},
		{
			name: "name that is not UTF-8",
			archive: func(t *testing.T) []byte {
				return tarGz(t, entry{name: "driver.styrmin.yml", body: "a"}, entry{name: "chart/bad\xff.yaml", body: "x"})
			},
			wantErr: `entry name "chart/bad\xff.yaml" is not UTF-8`,
		},
		{
			name:    "no driver file",
			archive: func(t *testing.T) []byte { return tarGz(t, entry{name: "README.md", body: "x"}) },
			wantErr: "driver.styrmin.yml is missing",
		},
		{
			name: "several bundles",
			archive: func(t *testing.T) []byte {
				return tarGz(t, entry{name: "a/driver.styrmin.yml", body: "x"}, entry{name: "b/driver.styrmin.yml", body: "y"})
			},
			wantErr: "several bundles (a, b)",
		},
		{
			name: "duplicate entry",
			archive: func(t *testing.T) []byte {
				return tarGz(t, entry{name: "driver.styrmin.yml", body: "x"}, entry{name: "./driver.styrmin.yml", body: "y"})
			},
			wantErr: "twice",
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			fsys, root, err := Unpack(bytes.NewReader(tt.archive(t)))
			if tt.wantErr != "" {
				require.ErrorContains(t, err, tt.wantErr)
				require.Equal(t, styrmin.EINVALID, styrmin.ErrorCode(err))
				return
			}
			require.NoError(t, err)
			require.Equal(t, tt.wantRoot, root)
			_, err = fs.Stat(fsys, tt.wantFile)
			require.NoError(t, err)
		})
	}
}

func TestPackRoundTrip(t *testing.T) {
	t.Parallel()
	files := map[string][]byte{
		"driver.styrmin.yml":     []byte("apiVersion: styrmin.io/v1\n"),
		"chart/templates/a.yaml": []byte("kind: ConfigMap\n"),
		"icon.svg":               []byte("<svg/>"),
	}
	first, err := Pack(files)
	require.NoError(t, err)
	second, err := Pack(files)
	require.NoError(t, err)
	require.Equal(t, first, second, "packing the same files twice gives the same bytes")

	fsys, root, err := Unpack(bytes.NewReader(first))
	require.NoError(t, err)
	require.Equal(t, ".", root)
	for name, want := range files {
		got, err := fs.ReadFile(fsys, name)
		require.NoError(t, err)
		require.Equal(t, want, got)
	}
}
