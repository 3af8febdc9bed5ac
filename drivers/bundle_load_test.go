package drivers

import (
	"bytes"
	"errors"
	"fmt"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"testing/fstest"

	"github.com/stretchr/testify/require"
)

// bundleSpec is a driver file with a local chart, an icon and one action; line 12 holds the icon.
const bundleSpec = `apiVersion: styrmin.io/v1
kind: Driver
metadata:
  name: demo
spec:
  version: 1.0.0
  supported_versions: ">=1.0.0"
  helm:
    main:
      location: ./chart
      version: 1.2.3
  info: {icon: icon.svg}
  actions:
    - {name: backup, hook: manual, function: "actions:backup"}
`

// pngHeader is the start of a PNG file, enough for content sniffing.
var pngHeader = []byte("\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR")

// goodBundle returns the files of a valid bundle in folder b.
func goodBundle() fstest.MapFS {
	return fstest.MapFS{
		"b/driver.styrmin.yml":    {Data: []byte(bundleSpec)},
		"b/icon.svg":              {Data: []byte(`<svg xmlns="http://www.w3.org/2000/svg"/>`)},
		"b/chart/Chart.yaml":      {Data: []byte("apiVersion: v2\nname: demo\nversion: 1.2.3\n")},
		"b/chart/values.yaml":     {Data: []byte("a: 1\n")},
		"b/actions.py":            {Data: []byte("import os\n\n\ndef backup(**kw):\n    pass\n")},
		"b/README.md":             {Data: []byte("# Demo\n")},
		"b/.git/config":           {Data: []byte("skipped")},
		"b/__pycache__/a.pyc":     {Data: []byte("skipped")},
		"b/chart/templates/.keep": {Data: []byte("")},
	}
}

func TestLoadBundle(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name   string
		change func(fstest.MapFS)
		want   []want
	}{
		{"valid bundle", func(fstest.MapFS) {}, nil},
		{"png icon", func(f fstest.MapFS) {
			replaceSpec(f, "icon.svg", "img/icon.png")
			f["b/img/icon.png"] = &fstest.MapFile{Data: pngHeader}
		}, nil},
		{"icon missing", func(f fstest.MapFS) { delete(f, "b/icon.svg") }, []want{{12, "spec.info.icon", "file icon.svg not found in the bundle"}}},
		{"icon not an image", func(f fstest.MapFS) { f["b/icon.svg"].Data = []byte("<html><svg></svg></html>") }, []want{{12, "spec.info.icon", "not an SVG, PNG, JPEG or WebP image (its content is text/html"}}},
		{"icon too large", func(f fstest.MapFS) {
			f["b/icon.svg"].Data = append([]byte("<svg>"), bytes.Repeat([]byte(" "), 256<<10)...)
		}, []want{{12, "spec.info.icon", "an icon may be at most 256 KiB"}}},
		{"https icon needs no file", func(f fstest.MapFS) {
			replaceSpec(f, "icon.svg", "\"https://example.com/icon.svg\"")
			delete(f, "b/icon.svg")
		}, nil},
		{"chart missing", func(f fstest.MapFS) {
			for name := range f {
				if strings.HasPrefix(name, "b/chart/") {
					delete(f, name)
				}
			}
		}, []want{{10, "spec.helm.main.location", "no chart at ./chart"}}},
		{"chart version differs", func(f fstest.MapFS) {
			f["b/chart/Chart.yaml"].Data = []byte("apiVersion: v2\nname: demo\nversion: 1.2.4\n")
		}, []want{{11, "spec.helm.main.version", "is 1.2.3 but chart/Chart.yaml has version 1.2.4; make them equal"}}},
		{"chart name differs", func(f fstest.MapFS) {
			replaceSpec(f, "location: ./chart", "location: ./chart\n      chart: other")
		}, []want{{11, "spec.helm.main.chart", "the chart at ./chart is named demo"}}},
		{"Chart.yaml invalid", func(f fstest.MapFS) {
			f["b/chart/Chart.yaml"].Data = []byte("apiVersion: v2\nversion: 1.2.3\n")
		}, []want{{10, "spec.helm.main.location", "cannot load the chart at ./chart"}}},
		{"helmignore excludes files", func(f fstest.MapFS) {
			f["b/chart/.helmignore"] = &fstest.MapFile{Data: []byte("broken/\n")}
			f["b/chart/broken/Chart.yaml"] = &fstest.MapFile{Data: []byte("not: [a chart")}
		}, nil},
		{"chart archive", func(f fstest.MapFS) {
			replaceSpec(f, "./chart", "./demo-1.2.3.tgz")
			f["b/demo-1.2.3.tgz"] = &fstest.MapFile{Data: []byte("not gzip")}
		}, []want{{10, "spec.helm.main.location", "cannot load the chart at ./demo-1.2.3.tgz"}}},
		{"action module missing", func(f fstest.MapFS) { delete(f, "b/actions.py") }, []want{{14, "spec.actions[0].function", "module actions not found in the bundle; add actions.py or actions/__init__.py"}}},
		{"action function missing", func(f fstest.MapFS) {
			f["b/actions.py"].Data = []byte("class A:\n    def backup(self):\n        pass\n\ndef backups():\n    pass\n")
		}, []want{{14, "spec.actions[0].function", `actions.py defines no top-level function backup; did you mean "backups"?`}}},
		{"action module invalid", func(f fstest.MapFS) { f["b/actions.py"].Data = []byte("def backup(:\n") }, []want{{14, "spec.actions[0].function", "actions.py is not valid Python: line 1"}}},
		{"dotted action module", func(f fstest.MapFS) {
			replaceSpec(f, "actions:backup", "ops.db:backup")
			f["b/ops/db/__init__.py"] = &fstest.MapFile{Data: []byte("async def backup():\n    pass\n")}
		}, nil},
		{"action module too large", func(f fstest.MapFS) {
			f["b/actions.py"].Data = append([]byte("def backup():\n    pass\n"), bytes.Repeat([]byte("x = 1\n"), 7<<20/6)...)
		}, []want{{14, "spec.actions[0].function", "bytes; an action module may be at most 1048576, so split it"}}},
		{"action module deeply parenthesised", func(f fstest.MapFS) {
			f["b/actions.py"].Data = []byte("def backup():\n    pass\nx = " + strings.Repeat("(", 100_000) + strings.Repeat(")", 100_000) + "\n")
		}, []want{{14, "spec.actions[0].function", "actions.py is not valid Python: line 3: too many nested parentheses"}}},
		{"action module deeply nested list", func(f fstest.MapFS) {
			f["b/actions.py"].Data = []byte("def backup():\n    pass\nx = " + strings.Repeat("[", 100_000) + strings.Repeat("]", 100_000) + "\n")
		}, []want{{14, "spec.actions[0].function", "actions.py is not valid Python: line 3: too many nested parentheses"}}},
		{"action module too deep for the parser", func(f fstest.MapFS) {
			f["b/actions.py"].Data = []byte("def backup():\n    pass\nx = " + strings.Repeat("-", 1_000_000) + "1\n")
		}, []want{{14, "spec.actions[0].function", "actions.py cannot be checked: it is too deeply nested or too large to parse"}}},
		{"action module too deep for the compiler", func(f fstest.MapFS) {
			f["b/actions.py"].Data = []byte("def backup():\n    pass\nx = 1" + strings.Repeat("+1", 500_000) + "\n")
		}, []want{{14, "spec.actions[0].function", "actions.py cannot be checked: it is too deeply nested or too large to parse"}}},
		{"too many files", func(f fstest.MapFS) {
			for i := range MaxBundleFiles {
				f[fmt.Sprintf("b/data/%d", i)] = &fstest.MapFile{}
			}
		}, []want{{1, "", "the bundle holds more than 2000 files"}}},
		{"file too large", func(f fstest.MapFS) {
			f["b/data"] = &fstest.MapFile{Data: make([]byte, MaxBundleFileSize+1)}
		}, []want{{1, "", "data: the file is larger than 8 MiB"}}},
		{"files too large together", func(f fstest.MapFS) {
			f["b/data1"] = &fstest.MapFile{Data: make([]byte, MaxBundleFileSize)}
			f["b/data2"] = &fstest.MapFile{Data: make([]byte, MaxBundleFileSize)}
		}, []want{{1, "", "the bundle's files add up to more than 16 MiB"}}},
		{"name that is not UTF-8", func(f fstest.MapFS) {
			f["b/chart/bad\xff.yaml"] = &fstest.MapFile{Data: []byte("a: 1")}
		}, []want{{1, "", `"chart/bad\xff.yaml" is not a UTF-8 name`}}},
		{"values template past its budget", func(f fstest.MapFS) {
			replaceSpec(f, "version: 1.2.3", "version: 1.2.3\n      values: '{{ $x := indent 1000000000000 \"x\" }}a: 1'")
		}, []want{{12, "spec.helm.main.values", "would be larger than 1048576 bytes"}}},
		{"spec and bundle problems together", func(f fstest.MapFS) {
			replaceSpec(f, "name: demo", "name: Demo")
			delete(f, "b/icon.svg")
		}, []want{{4, "metadata.name", "DNS-1123"}, {12, "spec.info.icon", "not found"}}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			fsys := goodBundle()
			tt.change(fsys)
			b, err := LoadBundle(t.Context(), fsys, "b")
			if tt.want == nil {
				require.NoError(t, err)
				require.NotNil(t, b.Driver)
				return
			}
			var ps Problems
			require.True(t, errors.As(err, &ps), "want Problems, got %v", err)
			require.Len(t, ps, len(tt.want), "problems:\n%v", ps)
			for i, w := range tt.want {
				require.Equal(t, "b/driver.styrmin.yml", ps[i].File)
				require.Equal(t, w.line, ps[i].Line, "line of %v", ps[i])
				require.Equal(t, w.field, ps[i].Field)
				require.Contains(t, ps[i].Message, w.msg)
			}
		})
	}
}

// fakePython puts a python3 that runs script (sh) first in PATH.
func fakePython(t *testing.T, script string) {
	dir := t.TempDir()
	require.NoError(t, os.WriteFile(filepath.Join(dir, "python3"), []byte("#!/bin/sh\n"+script+"\n"), 0o755))
	t.Setenv("PATH", dir)
}

func TestLoadBundleReportsAFailingPythonAsAProblem(t *testing.T) {
	tests := []struct{ name, script, want string }{
		{"killed", "kill -9 $$", "actions.py cannot be checked: checking it failed (signal: killed); simplify it"},
		{"crashed", "echo 'MemoryError' >&2; exit 1", "actions.py cannot be checked: checking it failed (exit status 1: MemoryError); simplify it"},
		{"no result", "echo garbage", "actions.py cannot be checked: checking it gave no result; simplify it"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			fakePython(t, tt.script)
			_, err := LoadBundle(t.Context(), goodBundle(), "b")
			var ps Problems
			require.ErrorAs(t, err, &ps)
			require.Len(t, ps, 1)
			require.Equal(t, "spec.actions[0].function", ps[0].Field)
			require.Equal(t, tt.want, ps[0].Message)
		})
	}
}

func TestLoadTrusted(t *testing.T) {
	checked, err := LoadBundle(t.Context(), goodBundle(), "b")
	require.NoError(t, err)
	t.Setenv("PATH", t.TempDir()) // no python3: loading a trusted bundle must not need it
	_, err = LoadBundle(t.Context(), goodBundle(), "b")
	require.ErrorContains(t, err, "python3 not found", "without python3 a checked load fails")

	trusted, err := LoadTrusted(goodBundle(), "b", checked.Digest())
	require.NoError(t, err)
	require.Equal(t, checked.Driver, trusted.Driver)
	require.Equal(t, checked.Icon, trusted.Icon)
	require.Equal(t, checked.Readme, trusted.Readme)
	require.Equal(t, checked.Chart.Metadata, trusted.Chart.Metadata)
	require.Equal(t, checked.Files, trusted.Files)

	tampered := goodBundle()
	tampered["b/actions.py"].Data = []byte("import os\nos.system('curl evil')\n")
	_, err = LoadTrusted(tampered, "b", checked.Digest())
	require.ErrorIs(t, err, ErrDigestMismatch)
}

func TestLoadBundleContent(t *testing.T) {
	t.Parallel()
	b, err := LoadBundle(t.Context(), goodBundle(), "b")
	require.NoError(t, err)
	require.Equal(t, "b/driver.styrmin.yml", b.Path)
	require.Equal(t, "demo", b.Driver.Metadata.Name)
	require.Equal(t, &Icon{Name: "icon.svg", ContentType: "image/svg+xml", Data: []byte(`<svg xmlns="http://www.w3.org/2000/svg"/>`)}, b.Icon)
	require.Equal(t, "# Demo\n", b.Readme)
	require.Equal(t, "demo", b.Chart.Metadata.Name)
	require.Equal(t, []string{"README.md", "actions.py", "chart/Chart.yaml", "chart/templates/.keep", "chart/values.yaml", "driver.styrmin.yml", "icon.svg"}, sortedKeys(b.Files))
}

func TestBundleDigest(t *testing.T) {
	t.Parallel()
	a, err := LoadBundle(t.Context(), goodBundle(), "b")
	require.NoError(t, err)
	moved := fstest.MapFS{}
	for name, f := range goodBundle() {
		moved["other/place/"+strings.TrimPrefix(name, "b/")] = f
	}
	same, err := LoadBundle(t.Context(), moved, "other/place")
	require.NoError(t, err)
	require.Equal(t, a.Digest(), same.Digest(), "the folder a bundle is in does not change its digest")
	require.Len(t, a.Digest(), 64)

	changed := goodBundle()
	changed["b/README.md"].Data = []byte("# Demo!\n")
	c, err := LoadBundle(t.Context(), changed, "b")
	require.NoError(t, err)
	require.NotEqual(t, a.Digest(), c.Digest())

	renamed := &Bundle{Files: maps.Clone(a.Files)}
	renamed.Files["README.markdown"] = renamed.Files["README.md"]
	delete(renamed.Files, "README.md")
	require.NotEqual(t, a.Digest(), renamed.Digest())
}

func TestLoadPathReportsLinks(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	for name, f := range goodBundle() {
		file := filepath.Join(dir, filepath.FromSlash(name))
		require.NoError(t, os.MkdirAll(filepath.Dir(file), 0o755))
		require.NoError(t, os.WriteFile(file, f.Data, 0o644))
	}
	require.NoError(t, os.Rename(filepath.Join(dir, "b/actions.py"), filepath.Join(dir, "actions.py")))
	require.NoError(t, os.Symlink(filepath.Join(dir, "actions.py"), filepath.Join(dir, "b/actions.py")))
	_, err := LoadPath(t.Context(), filepath.Join(dir, "b"))
	var ps Problems
	require.ErrorAs(t, err, &ps)
	require.Len(t, ps, 2, "%v", ps)
	require.Equal(t, "actions.py is a symbolic link, which a bundle cannot hold; copy the file into the bundle instead", ps[0].Message)
	require.Equal(t, "spec.actions[0].function", ps[1].Field)
}

func TestLoadPath(t *testing.T) {
	t.Parallel()
	b, err := LoadPath(t.Context(), "testdata/good")
	require.NoError(t, err)
	require.Equal(t, filepath.Join("testdata/good", SpecFile), b.Path)
	require.Equal(t, "postgresql", b.Chart.Metadata.Name)
	require.NotContains(t, b.Chart.Raw, "notes.bak")
	require.Equal(t, "image/svg+xml", b.Icon.ContentType)

	byFile, err := LoadPath(t.Context(), "testdata/good/driver.styrmin.yml")
	require.NoError(t, err)
	require.Equal(t, b.Digest(), byFile.Digest())

	_, err = LoadPath(t.Context(), "testdata/missing")
	require.ErrorIs(t, err, os.ErrNotExist)

	_, err = LoadPath(t.Context(), "testdata")
	require.ErrorContains(t, err, "file not found; a bundle is a folder holding driver.styrmin.yml")
}

// replaceSpec edits the driver file of a test bundle.
func replaceSpec(f fstest.MapFS, old, repl string) {
	f["b/driver.styrmin.yml"].Data = []byte(strings.Replace(string(f["b/driver.styrmin.yml"].Data), old, repl, 1))
}

// sortedKeys lists the names of a file map in order.
func sortedKeys(files map[string][]byte) []string {
	return slices.Sorted(maps.Keys(files))
}
