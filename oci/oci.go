// Package oci publishes driver bundles as OCI artifacts and reads them back:
// push and pull within limits, the tags of a repository, and cosign's
// signatures (its key pairs and its `sha256-<digest>.sig` layout), signed
// and verified offline with a key pair, without a transparency log.
package oci

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"strings"

	ocispec "github.com/opencontainers/image-spec/specs-go/v1"
	"oras.land/oras-go/v2/registry"
	"oras.land/oras-go/v2/registry/remote"
	"oras.land/oras-go/v2/registry/remote/auth"

	styrmin "github.com/styrmin/styrmin"
)

// Media types of a driver bundle as an OCI artifact.
const (
	// ArtifactType is the manifest's artifactType.
	ArtifactType = "application/vnd.styrmin.driver.v1"
	// ConfigMediaType is the config blob's: a BundleConfig as JSON.
	ConfigMediaType = "application/vnd.styrmin.driver.config.v1+json"
	// BundleMediaType is the one layer's: the bundle archive (catalog.Pack).
	BundleMediaType = "application/vnd.styrmin.driver.bundle.v1.tar+gzip"
)

// Scheme starts every reference this package reads.
const Scheme = "oci://"

// BundleConfig is what an artifact's config blob says of its bundle.
type BundleConfig struct {
	// Name and Version are the driver's.
	Name    string `json:"name"`
	Version string `json:"version"`
	// Digest is the bundle's digest as the catalogue records it.
	Digest string `json:"digest"`
}

// Ref is a parsed oci://HOST/REPO[:TAG|@DIGEST] reference.
type Ref struct {
	registry.Reference
}

// ParseRef parses oci://HOST/REPO[:TAG|@DIGEST]; an EINVALID error says what is wrong.
func ParseRef(s string) (Ref, error) {
	rest, ok := strings.CutPrefix(s, Scheme)
	if !ok {
		return Ref{}, styrmin.Errorf(styrmin.EINVALID, "%q is not an OCI reference: write oci://HOST/REPOSITORY[:TAG], such as oci://registry.example.com/drivers/hello-web:1.0.0.", s)
	}
	r, err := registry.ParseReference(rest)
	if err != nil {
		return Ref{}, &styrmin.Error{Code: styrmin.EINVALID, Err: err,
			Message: fmt.Sprintf("%q is not an OCI reference: write oci://HOST/REPOSITORY[:TAG], such as oci://registry.example.com/drivers/hello-web:1.0.0.", s)}
	}
	return Ref{r}, nil
}

// Repository is the reference without tag or digest: oci://HOST/REPO.
func (r Ref) Repository() string {
	return Scheme + r.Registry + "/" + r.Reference.Repository
}

// WithReference is r naming the tag or digest ref instead.
func (r Ref) WithReference(ref string) Ref {
	r.Reference.Reference = ref
	return r
}

// String is the reference as oci://HOST/REPO:TAG or oci://HOST/REPO@DIGEST.
func (r Ref) String() string {
	return Scheme + r.Reference.String()
}

// Client reaches OCI registries.
type Client struct {
	// HTTP sends the requests; http.DefaultClient when nil.
	HTTP *http.Client
	// PlainHTTP speaks http instead of https (a registry on loopback).
	PlainHTTP bool
	// Credentials give the login of a registry host; anonymous when nil.
	Credentials auth.CredentialFunc
}

// repository opens ref's repository.
func (c Client) repository(ref Ref) *remote.Repository {
	hc := c.HTTP
	if hc == nil {
		hc = http.DefaultClient
	}
	return &remote.Repository{
		Client:    &auth.Client{Client: hc, Credential: c.Credentials, Cache: auth.NewCache()},
		Reference: ref.Reference,
		PlainHTTP: c.PlainHTTP,
	}
}

// pushManifest pushes m, tagged tag.
func pushManifest(ctx context.Context, repo *remote.Repository, m ocispec.Manifest, tag string) (ocispec.Descriptor, error) {
	m.Versioned.SchemaVersion = 2
	m.MediaType = ocispec.MediaTypeImageManifest
	data, err := json.Marshal(m)
	if err != nil {
		return ocispec.Descriptor{}, err
	}
	desc := descriptorOf(ocispec.MediaTypeImageManifest, data)
	desc.ArtifactType = m.ArtifactType
	if err := repo.PushReference(ctx, desc, strings.NewReader(string(data)), tag); err != nil {
		return ocispec.Descriptor{}, err
	}
	return desc, nil
}
