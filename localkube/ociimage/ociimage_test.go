package ociimage

import (
	"archive/tar"
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestWriteMakesALayoutWithOneNamedImage(t *testing.T) {
	bin := filepath.Join(t.TempDir(), "tool")
	if err := os.WriteFile(bin, []byte("#!binary"), 0o755); err != nil {
		t.Fatal(err)
	}
	var out bytes.Buffer
	if err := Write(&out, Image{Name: "styrmin.local/tool:2", Binary: bin, Path: "/tool"}); err != nil {
		t.Fatal(err)
	}
	files := map[string][]byte{}
	tr := tar.NewReader(&out)
	for {
		hdr, err := tr.Next()
		if err == io.EOF {
			break
		}
		if err != nil {
			t.Fatal(err)
		}
		data, _ := io.ReadAll(tr)
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
	var index struct {
		Manifests []descriptor `json:"manifests"`
	}
	if err := json.Unmarshal(files["index.json"], &index); err != nil {
		t.Fatal(err)
	}
	if len(index.Manifests) != 1 {
		t.Fatalf("index has %d manifests", len(index.Manifests))
	}
	m := index.Manifests[0]
	if m.Annotations["io.containerd.image.name"] != "styrmin.local/tool:2" || m.Annotations["org.opencontainers.image.ref.name"] != "2" {
		t.Fatalf("annotations %v", m.Annotations)
	}
	if _, ok := files["blobs/sha256/"+strings.TrimPrefix(m.Digest, "sha256:")]; !ok {
		t.Fatalf("manifest %s missing", m.Digest)
	}
	if _, ok := files["oci-layout"]; !ok {
		t.Fatal("oci-layout missing")
	}
}
