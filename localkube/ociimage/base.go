package ociimage

import (
	"archive/tar"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
)

// smallBlob bounds the blobs readBase holds in memory (index, manifests,
// configs); layers are copied to files.
const smallBlob = 4 << 20

// base is what an image built on another one takes from it.
type base struct {
	layers  []blob
	diffIDs []string
	env     []string
}

// readBase reads the image name from the OCI layout tar layout, copying its
// layers into scratch.
func readBase(layout, name, scratch string) (base, error) {
	small := map[string][]byte{}
	if err := eachEntry(layout, func(hdr *tar.Header, r io.Reader) error {
		if hdr.Size > smallBlob {
			return nil
		}
		data, err := io.ReadAll(r)
		small[hdr.Name] = data
		return err
	}); err != nil {
		return base{}, err
	}
	var index struct{ Manifests []descriptor }
	if err := json.Unmarshal(small["index.json"], &index); err != nil {
		return base{}, fmt.Errorf("ociimage: base %s: index.json: %w", layout, err)
	}
	var manifestDesc *descriptor
	var names []string
	for i, m := range index.Manifests {
		names = append(names, m.Annotations["io.containerd.image.name"])
		if m.Annotations["io.containerd.image.name"] == name {
			manifestDesc = &index.Manifests[i]
		}
	}
	if manifestDesc == nil {
		return base{}, fmt.Errorf("ociimage: base %s has no image %s (it has %s)", layout, name, strings.Join(names, ", "))
	}
	var manifest struct {
		Config descriptor
		Layers []descriptor
	}
	var config struct {
		Config struct{ Env []string }
		RootFS struct {
			DiffIDs []string `json:"diff_ids"`
		} `json:"rootfs"`
	}
	if err := json.Unmarshal(small[blobPath(manifestDesc.Digest)], &manifest); err != nil {
		return base{}, fmt.Errorf("ociimage: base %s: manifest: %w", name, err)
	}
	if err := json.Unmarshal(small[blobPath(manifest.Config.Digest)], &config); err != nil {
		return base{}, fmt.Errorf("ociimage: base %s: config: %w", name, err)
	}
	wanted := map[string]string{}
	b := base{diffIDs: config.RootFS.DiffIDs, env: config.Config.Env}
	for _, l := range manifest.Layers {
		file := filepath.Join(scratch, strings.TrimPrefix(l.Digest, "sha256:"))
		wanted[blobPath(l.Digest)] = file
		b.layers = append(b.layers, blob{file: file, desc: descriptor{MediaType: l.MediaType, Digest: l.Digest, Size: l.Size}})
	}
	err := eachEntry(layout, func(hdr *tar.Header, r io.Reader) error {
		file, ok := wanted[hdr.Name]
		if !ok {
			return nil
		}
		delete(wanted, hdr.Name)
		f, err := os.Create(file)
		if err != nil {
			return err
		}
		if _, err := io.Copy(f, r); err != nil {
			f.Close()
			return err
		}
		return f.Close()
	})
	if err != nil {
		return base{}, err
	}
	if len(wanted) > 0 {
		return base{}, fmt.Errorf("ociimage: base %s: %d layers missing from %s", name, len(wanted), layout)
	}
	return b, nil
}

func blobPath(digest string) string {
	return "blobs/sha256/" + strings.TrimPrefix(digest, "sha256:")
}

// eachEntry calls fn with every regular file of the tar file p.
func eachEntry(p string, fn func(*tar.Header, io.Reader) error) error {
	f, err := os.Open(p)
	if err != nil {
		return fmt.Errorf("ociimage: %w", err)
	}
	defer f.Close()
	tr := tar.NewReader(f)
	for {
		hdr, err := tr.Next()
		if err == io.EOF {
			return nil
		}
		if err != nil {
			return fmt.Errorf("ociimage: read %s: %w", p, err)
		}
		if hdr.Typeflag != tar.TypeReg {
			continue
		}
		if err := fn(hdr, tr); err != nil {
			return fmt.Errorf("ociimage: read %s: %s: %w", p, hdr.Name, err)
		}
	}
}
