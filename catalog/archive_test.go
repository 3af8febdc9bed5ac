package catalog

import (
	"archive/tar"
	"bytes"
	"compress/gzip"
	"io/fs"
	"testing"

	"github.com/stretchr/testify/require"
	"github.com/styrmin/styrmin"
)

// entry is one member of a test archive.
type entry struct {
	name     string
	typeflag byte
	body     string
	linkname string
}

// tarGz builds a gzip-compressed tar archive from entries.
func tarGz(t *testing.T, entries ...entry) []byte {
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

func TestUnpack(t *testing.T) {
	t.Parallel()
	small := Limits{MaxFiles: 4, MaxFileSize: 10, MaxTotalSize: 15}
	tests := []struct {
		name     string
		archive  func(t *testing.T) []byte
		limits   Limits
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
			name:    "file too large",
			archive: func(t *testing.T) []byte { return tarGz(t, entry{name: "driver.styrmin.yml", body: "0123456789ab"}) },
			limits:  small,
			wantErr: "larger than",
		},
		{
			name: "total too large",
			archive: func(t *testing.T) []byte {
				return tarGz(t, entry{name: "driver.styrmin.yml", body: "012345678"}, entry{name: "b", body: "012345678"})
			},
			limits:  small,
			wantErr: "add up to more than",
		},
		{
			name: "too many entries",
			archive: func(t *testing.T) []byte {
				return tarGz(t, entry{name: "a/", typeflag: tar.TypeDir}, entry{name: "b/", typeflag: tar.TypeDir},
					entry{name: "c/", typeflag: tar.TypeDir}, entry{name: "d/", typeflag: tar.TypeDir}, entry{name: "e/", typeflag: tar.TypeDir})
			},
			limits:  small,
			wantErr: "more than 4 entries",
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
			lim := tt.limits
			if lim == (Limits{}) {
				lim = DefaultLimits
			}
			fsys, root, err := Unpack(bytes.NewReader(tt.archive(t)), lim)
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

	fsys, root, err := Unpack(bytes.NewReader(first), DefaultLimits)
	require.NoError(t, err)
	require.Equal(t, ".", root)
	for name, want := range files {
		got, err := fs.ReadFile(fsys, name)
		require.NoError(t, err)
		require.Equal(t, want, got)
	}
}
