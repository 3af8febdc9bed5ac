// Package ociimage writes a one-layer OCI image holding a single static binary,
// as an OCI image layout in a tar stream that `ctr images import` loads. The
// local cluster's real node reaches no registry, so its sandbox ("pause") image
// and the tests' images are made this way on the machine.
package ociimage

import (
	"archive/tar"
	"bytes"
	"compress/gzip"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path"
	"runtime"
	"strings"
	"time"
)

const (
	mediaManifest = "application/vnd.oci.image.manifest.v1+json"
	mediaConfig   = "application/vnd.oci.image.config.v1+json"
	mediaLayer    = "application/vnd.oci.image.layer.v1.tar+gzip"
)

// Image is what Write puts into the image.
type Image struct {
	// Name is the full reference the image is imported as, e.g.
	// styrmin.local/pause:1. It is the image's only name: the index carries it
	// in io.containerd.image.name, so containerd adds no import-<date> name.
	Name string
	// Binary is the path of the static binary on the host.
	Binary string
	// Path is where the binary goes in the image, e.g. /pause.
	Path string
}

type descriptor struct {
	MediaType   string            `json:"mediaType"`
	Digest      string            `json:"digest"`
	Size        int64             `json:"size"`
	Annotations map[string]string `json:"annotations,omitempty"`
	Platform    map[string]string `json:"platform,omitempty"`
}

// blob is one content-addressed file of the layout.
type blob struct {
	data []byte
	desc descriptor
}

func newBlob(mediaType string, data []byte) blob {
	sum := sha256.Sum256(data)
	return blob{data: data, desc: descriptor{MediaType: mediaType, Digest: "sha256:" + hex.EncodeToString(sum[:]), Size: int64(len(data))}}
}

// Write writes img as an OCI image layout tar to w, with the binary as the
// image's entrypoint.
func Write(w io.Writer, img Image) error {
	binary, err := os.ReadFile(img.Binary)
	if err != nil {
		return fmt.Errorf("ociimage: %w", err)
	}
	layer, diffID, err := layerOf(strings.TrimPrefix(img.Path, "/"), binary)
	if err != nil {
		return err
	}
	config, err := jsonBlob(mediaConfig, map[string]any{
		"architecture": runtime.GOARCH,
		"os":           "linux",
		"config":       map[string]any{"Entrypoint": []string{img.Path}},
		"rootfs":       map[string]any{"type": "layers", "diff_ids": []string{diffID}},
	})
	if err != nil {
		return err
	}
	manifest, err := jsonBlob(mediaManifest, map[string]any{
		"schemaVersion": 2,
		"mediaType":     mediaManifest,
		"config":        config.desc,
		"layers":        []descriptor{layer.desc},
	})
	if err != nil {
		return err
	}
	_, tag, _ := strings.Cut(path.Base(img.Name), ":")
	indexed := manifest.desc
	indexed.Annotations = map[string]string{"io.containerd.image.name": img.Name, "org.opencontainers.image.ref.name": tag}
	indexed.Platform = map[string]string{"architecture": runtime.GOARCH, "os": "linux"}
	index, err := json.Marshal(map[string]any{"schemaVersion": 2, "mediaType": "application/vnd.oci.image.index.v1+json", "manifests": []descriptor{indexed}})
	if err != nil {
		return fmt.Errorf("ociimage: index: %w", err)
	}
	return writeLayout(w, index, layer, config, manifest)
}

func jsonBlob(mediaType string, v any) (blob, error) {
	data, err := json.Marshal(v)
	if err != nil {
		return blob{}, fmt.Errorf("ociimage: %s: %w", mediaType, err)
	}
	return newBlob(mediaType, data), nil
}

// layerOf returns the gzipped layer holding binary at name, and the digest of
// the uncompressed tar (the config's diff_id).
func layerOf(name string, binary []byte) (blob, string, error) {
	var raw bytes.Buffer
	tw := tar.NewWriter(&raw)
	hdr := &tar.Header{Name: name, Mode: 0o755, Size: int64(len(binary)), ModTime: time.Unix(0, 0), Typeflag: tar.TypeReg}
	if err := tw.WriteHeader(hdr); err != nil {
		return blob{}, "", fmt.Errorf("ociimage: layer: %w", err)
	}
	if _, err := tw.Write(binary); err != nil {
		return blob{}, "", fmt.Errorf("ociimage: layer: %w", err)
	}
	if err := tw.Close(); err != nil {
		return blob{}, "", fmt.Errorf("ociimage: layer: %w", err)
	}
	sum := sha256.Sum256(raw.Bytes())
	var zipped bytes.Buffer
	zw := gzip.NewWriter(&zipped)
	if _, err := zw.Write(raw.Bytes()); err != nil {
		return blob{}, "", fmt.Errorf("ociimage: layer: %w", err)
	}
	if err := zw.Close(); err != nil {
		return blob{}, "", fmt.Errorf("ociimage: layer: %w", err)
	}
	return newBlob(mediaLayer, zipped.Bytes()), "sha256:" + hex.EncodeToString(sum[:]), nil
}

func writeLayout(w io.Writer, index []byte, blobs ...blob) error {
	tw := tar.NewWriter(w)
	file := func(name string, data []byte) error {
		hdr := &tar.Header{Name: name, Mode: 0o644, Size: int64(len(data)), ModTime: time.Unix(0, 0), Typeflag: tar.TypeReg}
		if err := tw.WriteHeader(hdr); err != nil {
			return err
		}
		_, err := tw.Write(data)
		return err
	}
	if err := file("oci-layout", []byte(`{"imageLayoutVersion":"1.0.0"}`)); err != nil {
		return fmt.Errorf("ociimage: %w", err)
	}
	if err := file("index.json", index); err != nil {
		return fmt.Errorf("ociimage: %w", err)
	}
	for _, b := range blobs {
		if err := file("blobs/sha256/"+strings.TrimPrefix(b.desc.Digest, "sha256:"), b.data); err != nil {
			return fmt.Errorf("ociimage: %w", err)
		}
	}
	if err := tw.Close(); err != nil {
		return fmt.Errorf("ociimage: %w", err)
	}
	return nil
}
