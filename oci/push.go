package oci

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"

	ocispec "github.com/opencontainers/image-spec/specs-go/v1"
	"oras.land/oras-go/v2/content"
)

// Pushed is a bundle pushed as an OCI artifact.
type Pushed struct {
	// Ref names the artifact by its tag.
	Ref Ref
	// Digest is the artifact manifest's digest, which a signature signs.
	Digest string
}

// Push pushes the bundle archive with its config as one artifact tagged
// ref's tag.
func (c Client) Push(ctx context.Context, ref Ref, archive []byte, config BundleConfig) (*Pushed, error) {
	if ref.Reference.Reference == "" || ref.ValidateReferenceAsDigest() == nil {
		return nil, fmt.Errorf("oci: push %s: the reference needs a tag", ref)
	}
	repo := c.repository(ref)
	cfg, err := json.Marshal(config)
	if err != nil {
		return nil, fmt.Errorf("oci: push %s: %w", ref, err)
	}
	configDesc := descriptorOf(ConfigMediaType, cfg)
	layer := descriptorOf(BundleMediaType, archive)
	layer.Annotations = map[string]string{ocispec.AnnotationTitle: config.Name + "-" + config.Version + ".tar.gz"}
	for _, blob := range []struct {
		desc ocispec.Descriptor
		data []byte
	}{{configDesc, cfg}, {layer, archive}} {
		if err := repo.Push(ctx, blob.desc, bytes.NewReader(blob.data)); err != nil {
			return nil, fmt.Errorf("oci: push %s: %w", ref, err)
		}
	}
	m := ocispec.Manifest{ArtifactType: ArtifactType, Config: configDesc, Layers: []ocispec.Descriptor{layer},
		Annotations: map[string]string{ocispec.AnnotationTitle: config.Name, ocispec.AnnotationVersion: config.Version}}
	desc, err := pushManifest(ctx, repo, m, ref.Reference.Reference)
	if err != nil {
		return nil, fmt.Errorf("oci: push %s: %w", ref, err)
	}
	return &Pushed{Ref: ref, Digest: desc.Digest.String()}, nil
}

// descriptorOf describes data of the media type.
func descriptorOf(mediaType string, data []byte) ocispec.Descriptor {
	return content.NewDescriptorFromBytes(mediaType, data)
}
