// Package ociimage writes OCI images as an OCI image layout in a tar stream
// that `ctr images import` loads. The local cluster's real node reaches no
// registry, so its images are made on the machine: the sandbox ("pause") image
// and the tests' images hold one static binary (Write); the images built from
// Debian packages (localkube/nodeimages) are tar layers on disk plus a config
// (WriteAll).
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
	mediaManifest  = "application/vnd.oci.image.manifest.v1+json"
	mediaConfig    = "application/vnd.oci.image.config.v1+json"
	mediaLayerGzip = "application/vnd.oci.image.layer.v1.tar+gzip"
	mediaLayerTar  = "application/vnd.oci.image.layer.v1.tar"
)

// Image is one static binary as an image, written by Write.
type Image struct {
	// Name is the full reference the image is imported as, e.g.
	// styrmin.local/pause:1. It is the image's only name: the index carries it
	// in io.containerd.image.name, so containerd adds no import-<date> name.
	Name string
	// Binary is the path of the static binary on the host.
	Binary string
	// Path is where the binary goes in the image, e.g. /pause.
	Path string
	// User is the user (uid[:gid]) the image's containers run as; empty
	// means root.
	User string
	// BaseLayout and BaseName, when set, name an image in an OCI layout tar
	// (e.g. the node images') whose layers and environment go under the
	// binary's layer.
	BaseLayout, BaseName string
}

// Config is what a container of the image runs with, as the OCI image
// config's "config" object holds it.
type Config struct {
	Entrypoint []string
	Cmd        []string
	// Env holds NAME=value entries; put PATH here, nothing adds one.
	Env        []string
	User       string
	WorkingDir string
	// ExposedPorts are "5432/tcp" style ports.
	ExposedPorts []string
	StopSignal   string
}

// LayeredImage is an image made of uncompressed tar layers on disk, written
// by WriteAll.
type LayeredImage struct {
	// Name is the full reference, as in Image.
	Name string
	// Layers are paths of uncompressed tar files, the bottom layer first.
	Layers []string
	Config Config
}

type descriptor struct {
	MediaType   string            `json:"mediaType"`
	Digest      string            `json:"digest"`
	Size        int64             `json:"size"`
	Annotations map[string]string `json:"annotations,omitempty"`
	Platform    map[string]string `json:"platform,omitempty"`
}

// blob is one content-addressed file of the layout, held in memory (data)
// or read from a file on disk (file).
type blob struct {
	data []byte
	file string
	desc descriptor
}

func newBlob(mediaType string, data []byte) blob {
	return blob{data: data, desc: descriptor{MediaType: mediaType, Digest: digestOf(data), Size: int64(len(data))}}
}

func digestOf(data []byte) string {
	sum := sha256.Sum256(data)
	return "sha256:" + hex.EncodeToString(sum[:])
}

// fileBlob reads the file once for its digest; writeLayout copies it later.
func fileBlob(mediaType, name string) (blob, error) {
	f, err := os.Open(name)
	if err != nil {
		return blob{}, fmt.Errorf("ociimage: layer: %w", err)
	}
	defer f.Close()
	h := sha256.New()
	size, err := io.Copy(h, f)
	if err != nil {
		return blob{}, fmt.Errorf("ociimage: layer %s: %w", name, err)
	}
	return blob{file: name, desc: descriptor{MediaType: mediaType, Digest: "sha256:" + hex.EncodeToString(h.Sum(nil)), Size: size}}, nil
}

// manifest is one image's manifest with the blobs it names.
type manifest struct {
	blobs   []blob
	indexed descriptor
}

// Write writes img as an OCI image layout tar to w, with the binary as the
// image's entrypoint, run as img.User.
func Write(w io.Writer, img Image) error {
	binary, err := os.ReadFile(img.Binary)
	if err != nil {
		return fmt.Errorf("ociimage: %w", err)
	}
	layer, diffID, err := layerOf(strings.TrimPrefix(img.Path, "/"), binary)
	if err != nil {
		return err
	}
	var under base
	if img.BaseLayout != "" {
		scratch, err := os.MkdirTemp("", "ociimage-base-*")
		if err != nil {
			return fmt.Errorf("ociimage: %w", err)
		}
		defer os.RemoveAll(scratch)
		if under, err = readBase(img.BaseLayout, img.BaseName, scratch); err != nil {
			return err
		}
	}
	config := Config{Entrypoint: []string{img.Path}, User: img.User, Env: under.env}
	m, err := manifestOf(img.Name, config, append(under.layers, layer), append(under.diffIDs, diffID))
	if err != nil {
		return err
	}
	return writeLayout(w, []manifest{m})
}

// WriteAll writes images as one OCI image layout tar to w. A layer file
// that several images share is stored once.
func WriteAll(w io.Writer, images []LayeredImage) error {
	layers := map[string]blob{}
	var manifests []manifest
	for _, img := range images {
		var blobs []blob
		var diffIDs []string
		for _, name := range img.Layers {
			layer, ok := layers[name]
			if !ok {
				var err error
				if layer, err = fileBlob(mediaLayerTar, name); err != nil {
					return err
				}
				layers[name] = layer
			}
			blobs = append(blobs, layer)
			// An uncompressed layer's diff_id is its own digest.
			diffIDs = append(diffIDs, layer.desc.Digest)
		}
		m, err := manifestOf(img.Name, img.Config, blobs, diffIDs)
		if err != nil {
			return err
		}
		manifests = append(manifests, m)
	}
	return writeLayout(w, manifests)
}

// manifestOf makes the config and manifest of one image named name.
func manifestOf(name string, c Config, layers []blob, diffIDs []string) (manifest, error) {
	config, err := jsonBlob(mediaConfig, map[string]any{
		"architecture": runtime.GOARCH,
		"os":           "linux",
		"config":       c.imageConfig(),
		"rootfs":       map[string]any{"type": "layers", "diff_ids": diffIDs},
	})
	if err != nil {
		return manifest{}, err
	}
	var layerDescs []descriptor
	for _, l := range layers {
		layerDescs = append(layerDescs, l.desc)
	}
	m, err := jsonBlob(mediaManifest, map[string]any{
		"schemaVersion": 2,
		"mediaType":     mediaManifest,
		"config":        config.desc,
		"layers":        layerDescs,
	})
	if err != nil {
		return manifest{}, err
	}
	_, tag, _ := strings.Cut(path.Base(name), ":")
	indexed := m.desc
	indexed.Annotations = map[string]string{"io.containerd.image.name": name, "org.opencontainers.image.ref.name": tag}
	indexed.Platform = map[string]string{"architecture": runtime.GOARCH, "os": "linux"}
	return manifest{blobs: append([]blob{config, m}, layers...), indexed: indexed}, nil
}

// imageConfig is c as the OCI config's "config" object, without empty fields.
func (c Config) imageConfig() map[string]any {
	out := map[string]any{}
	set := func(key string, v any, empty bool) {
		if !empty {
			out[key] = v
		}
	}
	set("Entrypoint", c.Entrypoint, len(c.Entrypoint) == 0)
	set("Cmd", c.Cmd, len(c.Cmd) == 0)
	set("Env", c.Env, len(c.Env) == 0)
	set("User", c.User, c.User == "")
	set("WorkingDir", c.WorkingDir, c.WorkingDir == "")
	set("StopSignal", c.StopSignal, c.StopSignal == "")
	ports := map[string]struct{}{}
	for _, p := range c.ExposedPorts {
		ports[p] = struct{}{}
	}
	set("ExposedPorts", ports, len(ports) == 0)
	return out
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
	var zipped bytes.Buffer
	zw := gzip.NewWriter(&zipped)
	if _, err := zw.Write(raw.Bytes()); err != nil {
		return blob{}, "", fmt.Errorf("ociimage: layer: %w", err)
	}
	if err := zw.Close(); err != nil {
		return blob{}, "", fmt.Errorf("ociimage: layer: %w", err)
	}
	return newBlob(mediaLayerGzip, zipped.Bytes()), digestOf(raw.Bytes()), nil
}

// writeLayout writes the layout of manifests, each blob once, and an index
// naming every manifest.
func writeLayout(w io.Writer, manifests []manifest) error {
	var indexed []descriptor
	for _, m := range manifests {
		indexed = append(indexed, m.indexed)
	}
	index, err := json.Marshal(map[string]any{"schemaVersion": 2, "mediaType": "application/vnd.oci.image.index.v1+json", "manifests": indexed})
	if err != nil {
		return fmt.Errorf("ociimage: index: %w", err)
	}
	tw := tar.NewWriter(w)
	if err := writeFile(tw, "oci-layout", int64(len(`{"imageLayoutVersion":"1.0.0"}`)), strings.NewReader(`{"imageLayoutVersion":"1.0.0"}`)); err != nil {
		return err
	}
	if err := writeFile(tw, "index.json", int64(len(index)), bytes.NewReader(index)); err != nil {
		return err
	}
	written := map[string]bool{}
	for _, m := range manifests {
		for _, b := range m.blobs {
			if written[b.desc.Digest] {
				continue
			}
			written[b.desc.Digest] = true
			if err := writeBlob(tw, b); err != nil {
				return err
			}
		}
	}
	if err := tw.Close(); err != nil {
		return fmt.Errorf("ociimage: %w", err)
	}
	return nil
}

func writeBlob(tw *tar.Writer, b blob) error {
	name := "blobs/sha256/" + strings.TrimPrefix(b.desc.Digest, "sha256:")
	if b.file == "" {
		return writeFile(tw, name, b.desc.Size, bytes.NewReader(b.data))
	}
	f, err := os.Open(b.file)
	if err != nil {
		return fmt.Errorf("ociimage: %w", err)
	}
	defer f.Close()
	return writeFile(tw, name, b.desc.Size, f)
}

func writeFile(tw *tar.Writer, name string, size int64, r io.Reader) error {
	hdr := &tar.Header{Name: name, Mode: 0o644, Size: size, ModTime: time.Unix(0, 0), Typeflag: tar.TypeReg}
	if err := tw.WriteHeader(hdr); err != nil {
		return fmt.Errorf("ociimage: %s: %w", name, err)
	}
	if _, err := io.CopyN(tw, r, size); err != nil {
		return fmt.Errorf("ociimage: %s: %w", name, err)
	}
	return nil
}
