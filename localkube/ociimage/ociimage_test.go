package ociimage

import (
	"archive/tar"
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"io"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	ocispec "github.com/opencontainers/image-spec/specs-go/v1"
)

// readLayout reads a layout tar into its files, checking that every blob's
// name is its digest, as containerd's importer does.
func readLayout(t *testing.T, r io.Reader) map[string][]byte {
	t.Helper()
	files := map[string][]byte{}
	tr := tar.NewReader(r)
	for {
		hdr, err := tr.Next()
		if err == io.EOF {
			break
		}
		if err != nil {
			t.Fatal(err)
		}
		data, err := io.ReadAll(tr)
		if err != nil {
			t.Fatal(err)
		}
		if _, dup := files[hdr.Name]; dup {
			t.Errorf("%s written twice", hdr.Name)
		}
		files[hdr.Name] = data
	}
	for name, data := range files {
		if digest, ok := strings.CutPrefix(name, "blobs/sha256/"); ok {
			sum := sha256.Sum256(data)
			if hex.EncodeToString(sum[:]) != digest {
				t.Errorf("blob %s has another digest", name)
			}
		}
	}
	if _, ok := files["oci-layout"]; !ok {
		t.Fatal("oci-layout missing")
	}
	return files
}

// blobOf decodes the blob a descriptor names.
func blobOf(t *testing.T, files map[string][]byte, desc ocispec.Descriptor, v any) []byte {
	t.Helper()
	data, ok := files["blobs/sha256/"+desc.Digest.Encoded()]
	if !ok {
		t.Fatalf("blob %s (%s) missing", desc.Digest, desc.MediaType)
	}
	if int64(len(data)) != desc.Size {
		t.Fatalf("blob %s is %d bytes, its descriptor says %d", desc.Digest, len(data), desc.Size)
	}
	if v != nil {
		if err := json.Unmarshal(data, v); err != nil {
			t.Fatal(err)
		}
	}
	return data
}

func TestWriteMakesALayoutWithOneNamedImage(t *testing.T) {
	bin := filepath.Join(t.TempDir(), "tool")
	if err := os.WriteFile(bin, []byte("#!binary"), 0o755); err != nil {
		t.Fatal(err)
	}
	var out bytes.Buffer
	if err := Write(&out, Image{Name: "styrmin.local/tool:2", Binary: bin, Path: "/tool"}); err != nil {
		t.Fatal(err)
	}
	files := readLayout(t, &out)
	var index ocispec.Index
	if err := json.Unmarshal(files["index.json"], &index); err != nil {
		t.Fatal(err)
	}
	if len(index.Manifests) != 1 {
		t.Fatalf("index has %d manifests", len(index.Manifests))
	}
	m := index.Manifests[0]
	if m.Annotations["io.containerd.image.name"] != "styrmin.local/tool:2" || m.Annotations[ocispec.AnnotationRefName] != "2" {
		t.Fatalf("annotations %v", m.Annotations)
	}
	var manifest ocispec.Manifest
	blobOf(t, files, m, &manifest)
	var config ocispec.Image
	blobOf(t, files, manifest.Config, &config)
	if !slices.Equal(config.Config.Entrypoint, []string{"/tool"}) {
		t.Fatalf("entrypoint %v", config.Config.Entrypoint)
	}
	if config.Config.User != "" {
		t.Fatalf("user %q, want none (root)", config.Config.User)
	}
}

func TestWriteRunsTheImageAsItsUser(t *testing.T) {
	bin := filepath.Join(t.TempDir(), "tool")
	if err := os.WriteFile(bin, []byte("#!binary"), 0o755); err != nil {
		t.Fatal(err)
	}
	var out bytes.Buffer
	if err := Write(&out, Image{Name: "styrmin.local/tool:3", Binary: bin, Path: "/tool", User: "65532:65532"}); err != nil {
		t.Fatal(err)
	}
	files := readLayout(t, &out)
	var index ocispec.Index
	if err := json.Unmarshal(files["index.json"], &index); err != nil {
		t.Fatal(err)
	}
	var manifest ocispec.Manifest
	blobOf(t, files, index.Manifests[0], &manifest)
	var config ocispec.Image
	blobOf(t, files, manifest.Config, &config)
	if config.Config.User != "65532:65532" {
		t.Fatalf("user %q, want 65532:65532", config.Config.User)
	}
}

// writeTar writes a layer tar holding the named files with their contents.
func writeTar(t *testing.T, name string, contents map[string]string) string {
	t.Helper()
	path := filepath.Join(t.TempDir(), name)
	f, err := os.Create(path)
	if err != nil {
		t.Fatal(err)
	}
	tw := tar.NewWriter(f)
	for _, file := range slices.Sorted(maps.Keys(contents)) {
		if err := tw.WriteHeader(&tar.Header{Name: file, Mode: 0o644, Size: int64(len(contents[file])), Typeflag: tar.TypeReg}); err != nil {
			t.Fatal(err)
		}
		if _, err := tw.Write([]byte(contents[file])); err != nil {
			t.Fatal(err)
		}
	}
	if err := tw.Close(); err != nil {
		t.Fatal(err)
	}
	if err := f.Close(); err != nil {
		t.Fatal(err)
	}
	return path
}

// unpack applies an image's layers in order, as a snapshotter does, and
// returns the resulting files.
func unpack(t *testing.T, files map[string][]byte, layers []ocispec.Descriptor) map[string]string {
	t.Helper()
	root := map[string]string{}
	for _, l := range layers {
		if l.MediaType != ocispec.MediaTypeImageLayer {
			t.Fatalf("layer %s has media type %s, want an uncompressed tar", l.Digest, l.MediaType)
		}
		tr := tar.NewReader(bytes.NewReader(blobOf(t, files, l, nil)))
		for {
			hdr, err := tr.Next()
			if err == io.EOF {
				break
			}
			if err != nil {
				t.Fatal(err)
			}
			data, _ := io.ReadAll(tr)
			root[hdr.Name] = string(data)
		}
	}
	return root
}

func TestWriteAllStoresASharedLayerOnceAndEachImagesConfig(t *testing.T) {
	base := writeTar(t, "base.tar", map[string]string{"etc/os-release": "debian", "etc/motd": "base"})
	db := writeTar(t, "db.tar", map[string]string{"etc/motd": "db", "entrypoint.sh": "#!/bin/sh"})
	web := writeTar(t, "web.tar", map[string]string{"etc/nginx.conf": "http {}"})
	dbConfig := Config{
		Entrypoint:   []string{"/entrypoint.sh"},
		Cmd:          []string{"postgres"},
		Env:          []string{"PATH=/usr/bin:/bin", "PGDATA=/data"},
		User:         "999:999",
		WorkingDir:   "/data",
		ExposedPorts: []string{"5432/tcp"},
		StopSignal:   "SIGINT",
	}
	images := []LayeredImage{
		{Name: "styrmin.local/db:15", Layers: []string{base, db}, Config: dbConfig},
		{Name: "styrmin.local/web:1", Layers: []string{base, web}, Config: Config{Cmd: []string{"nginx"}}},
	}
	var out bytes.Buffer
	if err := WriteAll(&out, images); err != nil {
		t.Fatal(err)
	}
	files := readLayout(t, &out)
	blobs := 0
	for name := range files {
		if strings.HasPrefix(name, "blobs/") {
			blobs++
		}
	}
	// 3 layers (the base once), 2 configs, 2 manifests.
	if blobs != 7 {
		t.Errorf("layout has %d blobs, want 7", blobs)
	}
	var index ocispec.Index
	if err := json.Unmarshal(files["index.json"], &index); err != nil {
		t.Fatal(err)
	}
	if len(index.Manifests) != 2 {
		t.Fatalf("index has %d manifests, want 2", len(index.Manifests))
	}
	var seen []string
	for _, desc := range index.Manifests {
		name := desc.Annotations["io.containerd.image.name"]
		seen = append(seen, name)
		var manifest ocispec.Manifest
		blobOf(t, files, desc, &manifest)
		var config ocispec.Image
		blobOf(t, files, manifest.Config, &config)
		if len(config.RootFS.DiffIDs) != len(manifest.Layers) {
			t.Fatalf("%s: %d diff_ids for %d layers", name, len(config.RootFS.DiffIDs), len(manifest.Layers))
		}
		for i, l := range manifest.Layers {
			if config.RootFS.DiffIDs[i] != l.Digest {
				t.Errorf("%s: diff_id %d is %s, the uncompressed layer is %s", name, i, config.RootFS.DiffIDs[i], l.Digest)
			}
		}
		root := unpack(t, files, manifest.Layers)
		switch name {
		case "styrmin.local/db:15":
			c := config.Config
			if !slices.Equal(c.Entrypoint, dbConfig.Entrypoint) || !slices.Equal(c.Cmd, dbConfig.Cmd) || !slices.Equal(c.Env, dbConfig.Env) ||
				c.User != "999:999" || c.WorkingDir != "/data" || c.StopSignal != "SIGINT" {
				t.Errorf("db config %+v", c)
			}
			if _, ok := c.ExposedPorts["5432/tcp"]; !ok || len(c.ExposedPorts) != 1 {
				t.Errorf("db exposed ports %v", c.ExposedPorts)
			}
			if root["etc/motd"] != "db" || root["etc/os-release"] != "debian" {
				t.Errorf("db's files %v: want the base's with its own layer on top", root)
			}
		case "styrmin.local/web:1":
			if !slices.Equal(config.Config.Cmd, []string{"nginx"}) || config.Config.Entrypoint != nil || config.Config.ExposedPorts != nil {
				t.Errorf("web config %+v", config.Config)
			}
			if root["etc/motd"] != "base" || root["etc/nginx.conf"] != "http {}" {
				t.Errorf("web's files %v", root)
			}
		}
	}
	slices.Sort(seen)
	if !slices.Equal(seen, []string{"styrmin.local/db:15", "styrmin.local/web:1"}) {
		t.Fatalf("index names %v", seen)
	}
}

func TestWritePutsTheBinaryOnABaseImage(t *testing.T) {
	dir := t.TempDir()
	layout := filepath.Join(dir, "base.tar")
	f, err := os.Create(layout)
	if err != nil {
		t.Fatal(err)
	}
	baseLayer := writeTar(t, "python.tar", map[string]string{"usr/bin/python3": "python"})
	err = WriteAll(f, []LayeredImage{{Name: "styrmin.local/python:3", Layers: []string{baseLayer}, Config: Config{Env: []string{"PATH=/usr/bin"}}}})
	if err != nil {
		t.Fatal(err)
	}
	f.Close()
	bin := filepath.Join(dir, "tool")
	if err := os.WriteFile(bin, []byte("#!binary"), 0o755); err != nil {
		t.Fatal(err)
	}
	img := Image{Name: "styrmin.local/tool:4", Binary: bin, Path: "/tool", User: "65532", BaseLayout: layout, BaseName: "styrmin.local/python:3"}
	var out bytes.Buffer
	if err := Write(&out, img); err != nil {
		t.Fatal(err)
	}
	files := readLayout(t, &out)
	var index ocispec.Index
	if err := json.Unmarshal(files["index.json"], &index); err != nil {
		t.Fatal(err)
	}
	var manifest ocispec.Manifest
	blobOf(t, files, index.Manifests[0], &manifest)
	var config ocispec.Image
	blobOf(t, files, manifest.Config, &config)
	if len(manifest.Layers) != 2 || len(config.RootFS.DiffIDs) != 2 {
		t.Fatalf("%d layers, %d diff_ids; want the base's and the binary's", len(manifest.Layers), len(config.RootFS.DiffIDs))
	}
	if !slices.Equal(config.Config.Env, []string{"PATH=/usr/bin"}) || config.Config.User != "65532" || !slices.Equal(config.Config.Entrypoint, []string{"/tool"}) {
		t.Fatalf("config %+v: want the base's environment, the image's user and entrypoint", config.Config)
	}
	if got := string(blobOf(t, files, manifest.Layers[0], nil)); !strings.Contains(got, "usr/bin/python3") {
		t.Fatal("the base's layer is not the first")
	}

	img.BaseName = "styrmin.local/none:1"
	if err := Write(io.Discard, img); err == nil || !strings.Contains(err.Error(), "has no image styrmin.local/none:1 (it has styrmin.local/python:3)") {
		t.Fatalf("a missing base: %v", err)
	}
}
