package oci

import (
	"bytes"
	"context"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"strings"

	"github.com/google/go-containerregistry/pkg/name"
	"github.com/opencontainers/go-digest"
	ocispec "github.com/opencontainers/image-spec/specs-go/v1"
	"github.com/sigstore/sigstore/pkg/signature"
	"github.com/sigstore/sigstore/pkg/signature/payload"
	"oras.land/oras-go/v2/errdef"
	"oras.land/oras-go/v2/registry/remote"

	styrmin "github.com/styrmin/styrmin"
)

// Cosign's signature layout.
const (
	// SimpleSigningMediaType is a signature layer's: its payload.
	SimpleSigningMediaType = "application/vnd.dev.cosign.simplesigning.v1+json"
	// SignatureAnnotation holds a layer's signature, base64.
	SignatureAnnotation = "dev.cosignproject.cosign/signature"
	// MaxSignatures is the most signatures read for one artifact.
	MaxSignatures = 16
	// maxPayloadBytes is the largest signed payload read.
	maxPayloadBytes = 16 << 10
)

// Signature failures, as Verify returns them (wrapped in an EINVALID error).
var (
	// ErrUnsigned is an artifact without any signature.
	ErrUnsigned = errors.New("unsigned")
	// ErrBadSignature is an artifact whose signatures no given key verifies.
	ErrBadSignature = errors.New("no valid signature by a trusted key")
)

// SignatureTag is the tag cosign gives the signatures of the manifest dgst.
func SignatureTag(dgst string) string {
	return strings.Replace(dgst, ":", "-", 1) + ".sig"
}

// Sign signs the artifact ref names (by tag or digest) with signer, as
// `cosign sign --key` does without a transparency log: a simple-signing
// payload naming the manifest's digest, added as a layer to the manifest
// tagged SignatureTag. It returns the digest signed.
func (c Client) Sign(ctx context.Context, ref Ref, signer signature.Signer) (string, error) {
	repo := c.repository(ref)
	desc, err := repo.Resolve(ctx, ref.Reference.Reference)
	if err != nil {
		return "", fmt.Errorf("oci: sign %s: %w", ref, err)
	}
	dgst := desc.Digest.String()
	d, err := name.NewDigest(ref.Registry + "/" + ref.Reference.Repository + "@" + dgst)
	if err != nil {
		return "", fmt.Errorf("oci: sign %s: %w", ref, err)
	}
	body, err := json.Marshal(payload.Cosign{Image: d})
	if err != nil {
		return "", fmt.Errorf("oci: sign %s: %w", ref, err)
	}
	sig, err := signer.SignMessage(bytes.NewReader(body))
	if err != nil {
		return "", fmt.Errorf("oci: sign %s: %w", ref, err)
	}
	m, err := signatureManifest(ctx, repo, SignatureTag(dgst))
	if err != nil {
		return "", fmt.Errorf("oci: sign %s: %w", ref, err)
	}
	layer := descriptorOf(SimpleSigningMediaType, body)
	layer.Annotations = map[string]string{SignatureAnnotation: base64.StdEncoding.EncodeToString(sig)}
	m.Layers = append(m.Layers, layer)
	if err := pushSignatures(ctx, repo, m, body, dgst); err != nil {
		return "", fmt.Errorf("oci: sign %s: %w", ref, err)
	}
	return dgst, nil
}

// signatureManifest is the manifest of the signatures tagged tag, or an empty one.
func signatureManifest(ctx context.Context, repo *remote.Repository, tag string) (ocispec.Manifest, error) {
	_, m, err := fetchManifest(ctx, repo, tag)
	if errors.Is(err, errdef.ErrNotFound) {
		return ocispec.Manifest{}, nil
	}
	return m, err
}

// pushSignatures pushes the payload blob, a config naming every layer as
// cosign's does, and the manifest m under dgst's signature tag.
func pushSignatures(ctx context.Context, repo *remote.Repository, m ocispec.Manifest, body []byte, dgst string) error {
	if err := repo.Push(ctx, descriptorOf(SimpleSigningMediaType, body), bytes.NewReader(body)); err != nil {
		return err
	}
	diffIDs := make([]digest.Digest, len(m.Layers))
	for i, l := range m.Layers {
		diffIDs[i] = l.Digest
	}
	cfg, err := json.Marshal(ocispec.Image{RootFS: ocispec.RootFS{Type: "layers", DiffIDs: diffIDs}})
	if err != nil {
		return err
	}
	m.Config = descriptorOf(ocispec.MediaTypeImageConfig, cfg)
	if err := repo.Push(ctx, m.Config, bytes.NewReader(cfg)); err != nil {
		return err
	}
	_, err = pushManifest(ctx, repo, m, SignatureTag(dgst))
	return err
}

// Key is a public key trusted to sign, with the name a page shows for it.
type Key struct {
	// Name says whose key it is.
	Name string
	// Verifier checks its signatures (LoadVerifier).
	Verifier signature.Verifier
}

// Verify checks that the artifact of manifest digest dgst in ref's
// repository carries a cosign signature by one of keys over a payload that
// names dgst, and returns that key's name. Errors: EINVALID wrapping
// ErrUnsigned (no signature at all) or ErrBadSignature (none by a given key
// over this digest), EUNAVAILABLE when the registry does not answer.
func (c Client) Verify(ctx context.Context, ref Ref, dgst string, keys []Key) (string, error) {
	repo := c.repository(ref)
	_, m, err := fetchManifest(ctx, repo, SignatureTag(dgst))
	switch {
	case errors.Is(err, errdef.ErrNotFound):
		return "", fmt.Errorf("oci: verify %s: %w", ref, &styrmin.Error{Code: styrmin.EINVALID, Err: ErrUnsigned, Message: "It is not signed."})
	case err != nil:
		return "", fmt.Errorf("oci: verify %s: %w", ref, err)
	}
	layers := m.Layers
	if len(layers) > MaxSignatures {
		layers = layers[:MaxSignatures]
	}
	for _, l := range layers {
		if name, ok := verifyLayer(ctx, repo, l, dgst, keys); ok {
			return name, nil
		}
	}
	return "", fmt.Errorf("oci: verify %s: %w", ref, &styrmin.Error{Code: styrmin.EINVALID, Err: ErrBadSignature,
		Message: "None of its signatures is a valid signature of this content by a trusted key."})
}

// verifyLayer reports which key, if any, signed the payload of layer l,
// a payload that names dgst.
func verifyLayer(ctx context.Context, repo *remote.Repository, l ocispec.Descriptor, dgst string, keys []Key) (string, bool) {
	sig, err := base64.StdEncoding.DecodeString(l.Annotations[SignatureAnnotation])
	if l.MediaType != SimpleSigningMediaType || err != nil || len(sig) == 0 {
		return "", false
	}
	body, err := fetchBlob(ctx, repo, l, maxPayloadBytes)
	if err != nil {
		return "", false
	}
	for _, k := range keys {
		if k.Verifier.VerifySignature(bytes.NewReader(sig), bytes.NewReader(body)) != nil {
			continue
		}
		var p payload.SimpleContainerImage
		if json.Unmarshal(body, &p) != nil || p.Critical.Type != payload.CosignSignatureType || p.Critical.Image.DockerManifestDigest != dgst {
			return "", false
		}
		return k.Name, true
	}
	return "", false
}

// SignBlob signs data (a bundle archive) with signer as `cosign sign-blob
// --key` does: the signature of its bytes, base64, as its
// --output-signature file holds it.
func SignBlob(signer signature.Signer, data []byte) ([]byte, error) {
	sig, err := signer.SignMessage(bytes.NewReader(data))
	if err != nil {
		return nil, fmt.Errorf("oci: sign blob: %w", err)
	}
	return []byte(base64.StdEncoding.EncodeToString(sig)), nil
}

// VerifyBlob returns the name of the key whose signature sig (base64, as
// SignBlob and `cosign sign-blob` write it) signs data. Errors: EINVALID
// wrapping ErrUnsigned (sig is nil) or ErrBadSignature (no key signed data
// with sig).
func VerifyBlob(data, sig []byte, keys []Key) (string, error) {
	if sig == nil {
		return "", &styrmin.Error{Code: styrmin.EINVALID, Err: ErrUnsigned, Message: "It is not signed."}
	}
	raw, err := base64.StdEncoding.DecodeString(strings.TrimSpace(string(sig)))
	if err == nil && len(raw) > 0 {
		for _, k := range keys {
			if k.Verifier.VerifySignature(bytes.NewReader(raw), bytes.NewReader(data)) == nil {
				return k.Name, nil
			}
		}
	}
	return "", &styrmin.Error{Code: styrmin.EINVALID, Err: ErrBadSignature,
		Message: "Its signature is not a valid signature of this content by a trusted key."}
}
