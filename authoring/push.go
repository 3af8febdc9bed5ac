package authoring

import (
	"context"
	"fmt"
	"os"

	styrmin "github.com/styrmin/styrmin"
	"github.com/styrmin/styrmin/catalog"
	"github.com/styrmin/styrmin/drivers"
	"github.com/styrmin/styrmin/oci"
)

// Push packs the driver folder or bundle archive p as Package does and
// pushes it as an OCI artifact to ref, tagged with the driver's version
// when ref names no tag. A tag that is not the version is refused: a
// catalogue source reads each tag as the version it holds.
func Push(ctx context.Context, c oci.Client, p string, ref oci.Ref) (*oci.Pushed, error) {
	b, err := loadFolderOrArchive(ctx, p)
	if err != nil {
		return nil, fmt.Errorf("authoring: push %s: %w", p, err)
	}
	name, version := b.Driver.Metadata.Name, b.Driver.Spec.Version
	switch ref.Reference.Reference {
	case "":
		ref = ref.WithReference(version)
	case version:
	default:
		return nil, styrmin.Errorf(styrmin.EINVALID, "The tag %q is not the driver's version %s: a catalogue source reads each tag as the version it holds. Leave the tag out, or write :%s.", ref.Reference.Reference, version, version)
	}
	archive, err := catalog.Pack(b.Files)
	if err != nil {
		return nil, fmt.Errorf("authoring: push %s: %w", p, err)
	}
	pushed, err := c.Push(ctx, ref, archive, oci.BundleConfig{Name: name, Version: version, Digest: b.Digest()})
	if err != nil {
		return nil, fmt.Errorf("authoring: push %s: %w", p, err)
	}
	return pushed, nil
}

// loadFolderOrArchive loads the driver folder or .tar.gz bundle archive p.
func loadFolderOrArchive(ctx context.Context, p string) (*drivers.Bundle, error) {
	info, err := os.Stat(p)
	if err != nil {
		return nil, styrmin.Errorf(styrmin.EINVALID, "Cannot read %s (%v); give a driver folder or a .tar.gz bundle archive.", p, err)
	}
	if info.IsDir() {
		return drivers.LoadPath(ctx, p)
	}
	f, err := os.Open(p)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	fsys, root, err := catalog.Unpack(f)
	if err != nil {
		return nil, err
	}
	return drivers.LoadBundle(ctx, fsys, root)
}
