package authoring

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"os"
	"path/filepath"

	"github.com/styrmin/styrmin/catalog"
	"github.com/styrmin/styrmin/drivers"
)

// Packaged is a driver folder packed as a bundle archive.
type Packaged struct {
	// Name and Version are the driver's.
	Name, Version string
	// Path is the archive's file: NAME-VERSION.tar.gz.
	Path string
	// Digest is the bundle's digest, as the catalogue records it at import
	// (drivers.Bundle.Digest).
	Digest string
	// SHA256 is the archive file's own sha256, hex.
	SHA256 string
}

// Package packs the driver folder p as a bundle archive in the folder dir,
// as `styrmin driver import` and the upload form take it: every file the
// catalogue would store (not the tests folder), nothing else. The same
// files always give the same bytes, whatever their times or the order the
// disk lists them in. The driver must load first: Styrmin would refuse a
// bundle that does not.
func Package(ctx context.Context, p, dir string) (*Packaged, error) {
	b, err := drivers.LoadPath(ctx, p)
	if err != nil {
		return nil, fmt.Errorf("authoring: package %s: %w", p, err)
	}
	archive, err := catalog.Pack(b.Files)
	if err != nil {
		return nil, fmt.Errorf("authoring: package %s: %w", p, err)
	}
	name, version := b.Driver.Metadata.Name, b.Driver.Spec.Version
	out := filepath.Join(dir, name+"-"+version+".tar.gz")
	if err := os.WriteFile(out, archive, 0o644); err != nil {
		return nil, fmt.Errorf("authoring: package %s: %w", p, err)
	}
	sum := sha256.Sum256(archive)
	return &Packaged{Name: name, Version: version, Path: out, Digest: b.Digest(), SHA256: hex.EncodeToString(sum[:])}, nil
}
