package oci

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"

	ocispec "github.com/opencontainers/image-spec/specs-go/v1"
	"oras.land/oras-go/v2/content"
	"oras.land/oras-go/v2/registry/remote"

	styrmin "github.com/styrmin/styrmin"
)

// Limits on what a registry may hand over; a registry is third-party content.
const (
	// MaxManifestBytes is the largest manifest read, an artifact's or a signature's.
	MaxManifestBytes = 64 << 10
	// MaxConfigBytes is the largest config blob read.
	MaxConfigBytes = 4 << 10
	// MaxTags is the most tags read from one repository.
	MaxTags = 1000
)

// Artifact is a bundle pulled from a registry.
type Artifact struct {
	// Digest is the manifest's digest, the one a signature signs.
	Digest string
	// Config is what the artifact says of its bundle; checked against the
	// archive by whoever loads it.
	Config BundleConfig
	// Archive is the bundle archive.
	Archive []byte
}

// Pull reads the artifact ref names, its archive at most maxArchive bytes.
// Every blob is checked against its digest. An EINVALID error says why a
// manifest is not a driver bundle's or is too large.
func (c Client) Pull(ctx context.Context, ref Ref, maxArchive int64) (*Artifact, error) {
	repo := c.repository(ref)
	desc, m, err := fetchManifest(ctx, repo, ref.Reference.Reference)
	if err != nil {
		return nil, fmt.Errorf("oci: pull %s: %w", ref, err)
	}
	if m.ArtifactType != ArtifactType || m.Config.MediaType != ConfigMediaType || len(m.Layers) != 1 || m.Layers[0].MediaType != BundleMediaType {
		return nil, fmt.Errorf("oci: pull %s: %w", ref, styrmin.Errorf(styrmin.EINVALID,
			"%s is not a driver bundle: its manifest is not an artifact of type %s with one layer of type %s.", ref, ArtifactType, BundleMediaType))
	}
	a := &Artifact{Digest: desc.Digest.String()}
	cfg, err := fetchBlob(ctx, repo, m.Config, MaxConfigBytes)
	if err != nil {
		return nil, fmt.Errorf("oci: pull %s: config: %w", ref, err)
	}
	if err := json.Unmarshal(cfg, &a.Config); err != nil {
		return nil, fmt.Errorf("oci: pull %s: %w", ref, &styrmin.Error{Code: styrmin.EINVALID, Err: err, Message: fmt.Sprintf("%s is not a driver bundle: its config is not JSON.", ref)})
	}
	if a.Archive, err = fetchBlob(ctx, repo, m.Layers[0], maxArchive); err != nil {
		return nil, fmt.Errorf("oci: pull %s: bundle: %w", ref, err)
	}
	return a, nil
}

// Tags lists the tags of ref's repository, at most MaxTags (an EINVALID error beyond).
func (c Client) Tags(ctx context.Context, ref Ref) ([]string, error) {
	var tags []string
	err := c.repository(ref).Tags(ctx, "", func(page []string) error {
		tags = append(tags, page...)
		if len(tags) > MaxTags {
			return styrmin.Errorf(styrmin.EINVALID, "%s has more than %d tags; Styrmin reads at most that many.", ref.Repository(), MaxTags)
		}
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("oci: tags of %s: %w", ref.Repository(), err)
	}
	return tags, nil
}

// fetchManifest resolves reference and reads its image manifest, at most MaxManifestBytes.
func fetchManifest(ctx context.Context, repo *remote.Repository, reference string) (ocispec.Descriptor, ocispec.Manifest, error) {
	var m ocispec.Manifest
	desc, err := repo.Resolve(ctx, reference)
	if err != nil {
		return desc, m, err
	}
	if desc.MediaType != ocispec.MediaTypeImageManifest {
		return desc, m, styrmin.Errorf(styrmin.EINVALID, "the manifest is of type %s, not an OCI image manifest.", desc.MediaType)
	}
	data, err := fetchBlob(ctx, repo, desc, MaxManifestBytes)
	if err != nil {
		return desc, m, err
	}
	if err := json.Unmarshal(data, &m); err != nil {
		return desc, m, &styrmin.Error{Code: styrmin.EINVALID, Err: err, Message: "the manifest is not JSON."}
	}
	return desc, m, nil
}

// ErrTooLarge is a blob larger than its limit.
var ErrTooLarge = errors.New("larger than its limit")

// fetchBlob reads the blob (or manifest) desc describes, refusing one larger
// than limit before reading it and one whose bytes do not match its digest.
func fetchBlob(ctx context.Context, repo *remote.Repository, desc ocispec.Descriptor, limit int64) ([]byte, error) {
	if desc.Size > limit || desc.Size < 0 {
		return nil, &styrmin.Error{Code: styrmin.EINVALID, Err: ErrTooLarge,
			Message: fmt.Sprintf("%s is %d bytes, more than the %d allowed.", desc.MediaType, desc.Size, limit)}
	}
	data, err := content.FetchAll(ctx, repo, desc)
	if err != nil {
		return nil, err
	}
	return data, nil
}
