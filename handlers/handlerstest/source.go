package handlerstest

import (
	"context"
	"crypto/x509"
	"io"
	"log"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"

	"github.com/google/go-containerregistry/pkg/registry"
	"github.com/stretchr/testify/require"

	"github.com/styrmin/styrmin/app/apptest"
	"github.com/styrmin/styrmin/catalog"
	"github.com/styrmin/styrmin/drivers"
	"github.com/styrmin/styrmin/drivers/bundled/bundledtest"
	"github.com/styrmin/styrmin/oci"
	"github.com/styrmin/styrmin/release"
	"github.com/styrmin/styrmin/source"
)

// Registry is an OCI registry on loopback (https) holding a repository of
// the bundled hello-web's versions, published as a driver author does with
// `styrmin driver push` and `sign`.
type Registry struct {
	// Repo is oci://HOST/drivers/hello-web, a catalogue source's address.
	Repo oci.Ref
	// Fetcher trusts the registry's certificate.
	Fetcher   release.ChartFetcher
	publisher oci.Client
}

// NewRegistry starts a Registry that stops when the test ends.
func NewRegistry(t *testing.T) *Registry {
	t.Helper()
	srv := httptest.NewTLSServer(registry.New(registry.Logger(log.New(io.Discard, "", 0))))
	t.Cleanup(srv.Close)
	r := &Registry{publisher: oci.Client{HTTP: srv.Client()}}
	r.Fetcher.RootCAs = x509.NewCertPool()
	r.Fetcher.RootCAs.AddCert(srv.Certificate())
	var err error
	r.Repo, err = oci.ParseRef("oci://" + strings.TrimPrefix(srv.URL, "https://") + "/drivers/hello-web")
	require.NoError(t, err)
	return r
}

// Push publishes the bundled hello-web as version under the tag version.
func (r *Registry) Push(t *testing.T, version string) {
	t.Helper()
	r.PushAs(t, version, version)
}

// PushAs publishes the bundled hello-web as version under tag, which a
// publisher's mistake (or an attacker) can make another version.
func (r *Registry) PushAs(t *testing.T, tag, version string) {
	t.Helper()
	b, archive := pack(t, version)
	r.PushArchive(t, tag, archive, oci.BundleConfig{Name: "hello-web", Version: version, Digest: b.Digest()})
}

// PushArchive publishes archive with config under tag, as `styrmin driver
// push` does whatever the archive holds.
func (r *Registry) PushArchive(t *testing.T, tag string, archive []byte, config oci.BundleConfig) {
	t.Helper()
	_, err := r.publisher.Push(context.Background(), r.Repo.WithReference(tag), archive, config)
	require.NoError(t, err)
}

// Pack is the archive of the bundled hello-web as version, as `styrmin
// driver package` writes it.
func Pack(t *testing.T, version string) []byte {
	t.Helper()
	_, archive := pack(t, version)
	return archive
}

// pack is the bundled hello-web as version and its archive.
func pack(t *testing.T, version string) (*drivers.Bundle, []byte) {
	t.Helper()
	b, err := drivers.LoadBundle(context.Background(), bundledtest.AsVersion(t, "hello-web", version), ".")
	require.NoError(t, err)
	archive, err := catalog.Pack(b.Files)
	require.NoError(t, err)
	return b, archive
}

// Sign signs the tag version with kp's private key.
func (r *Registry) Sign(t *testing.T, version string, kp *oci.KeyPair) {
	t.Helper()
	s, err := oci.LoadSigner(kp.Private, nil)
	require.NoError(t, err)
	_, err = r.publisher.Sign(context.Background(), r.Repo.WithReference(version), s)
	require.NoError(t, err)
}

// SyncSources does what a worker does for env's due sources, with the
// registry's host allowed (as an admin does under Settings, Chart hosts)
// and its certificate trusted; a sync that fails is recorded on its source.
func (r *Registry) SyncSources(t *testing.T, env *apptest.Env) {
	t.Helper()
	syncSources(t, env, r.Repo.Registry, r.Fetcher)
}

// syncSources syncs env's due sources with host allowed, through fetcher.
func syncSources(t *testing.T, env *apptest.Env, host string, fetcher release.ChartFetcher) {
	t.Helper()
	ctx := context.Background()
	_, err := env.Catalog.SetChartHosts(ctx, []string{host})
	require.NoError(t, err)
	sources := source.New(env.Pool, env.Catalog, fetcher)
	for synced := true; synced; {
		synced, _ = sources.SyncDue(ctx)
	}
}

// KeyPairs are two cosign key pairs (an author's and an attacker's), made
// once per test binary: scrypt makes each slow on purpose.
var KeyPairs = sync.OnceValues(func() ([]*oci.KeyPair, error) {
	var out []*oci.KeyPair
	for range 2 {
		kp, err := oci.GenerateKeyPair(nil)
		if err != nil {
			return nil, err
		}
		out = append(out, kp)
	}
	return out, nil
})
