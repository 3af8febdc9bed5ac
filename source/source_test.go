package source_test

import (
	"context"
	"crypto/x509"
	"io"
	"log"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"

	"github.com/google/go-containerregistry/pkg/registry"
	"github.com/stretchr/testify/require"

	styrmin "github.com/styrmin/styrmin"
	"github.com/styrmin/styrmin/audit"
	"github.com/styrmin/styrmin/catalog"
	"github.com/styrmin/styrmin/db/dbtest"
	"github.com/styrmin/styrmin/drivers"
	"github.com/styrmin/styrmin/drivers/bundled/bundledtest"
	"github.com/styrmin/styrmin/oci"
	"github.com/styrmin/styrmin/release"
	"github.com/styrmin/styrmin/source"
)

// bundle is a test's registry, catalogue and sources.
type bundle struct {
	ctx     context.Context
	host    string
	repo    oci.Ref
	fetcher release.ChartFetcher
	cat     *catalog.Catalog
	audit   *audit.Store
	sources *source.Service
	// publisher pushes and signs as a driver author does.
	publisher oci.Client
}

// setup starts a registry on loopback (https, its certificate trusted) and
// a catalogue whose admin allows its host, as Settings, Chart hosts does.
func setup(t *testing.T, fetcher release.ChartFetcher, allowHost bool) *bundle {
	t.Helper()
	return serve(t, registry.New(registry.Logger(log.New(io.Discard, "", 0))), fetcher, allowHost)
}

// serve is setup with the server h on loopback in place of a registry.
func serve(t *testing.T, h http.Handler, fetcher release.ChartFetcher, allowHost bool) *bundle {
	t.Helper()
	srv := httptest.NewTLSServer(h)
	t.Cleanup(srv.Close)
	fetcher.RootCAs = x509.NewCertPool()
	fetcher.RootCAs.AddCert(srv.Certificate())
	b := &bundle{ctx: context.Background(), host: strings.TrimPrefix(srv.URL, "https://"), fetcher: fetcher, publisher: oci.Client{HTTP: srv.Client()}}
	var err error
	b.repo, err = oci.ParseRef("oci://" + b.host + "/drivers/hello-web")
	require.NoError(t, err)
	pool := dbtest.New(t)
	b.audit = audit.NewStore(pool)
	b.cat = catalog.New(pool, fetcher)
	if allowHost {
		_, err = b.cat.SetChartHosts(b.ctx, []string{b.host})
		require.NoError(t, err)
	}
	b.sources = source.New(pool, b.cat, fetcher)
	return b
}

// pack is the bundled hello-web as version, packed as `styrmin driver package` does.
func (b *bundle) pack(t *testing.T, version string) []byte {
	t.Helper()
	bnd, err := drivers.LoadBundle(b.ctx, bundledtest.AsVersion(t, "hello-web", version), ".")
	require.NoError(t, err)
	archive, err := catalog.Pack(bnd.Files)
	require.NoError(t, err)
	return archive
}

// push publishes the bundled hello-web as version, as `styrmin driver push` does.
func (b *bundle) push(t *testing.T, version string) {
	t.Helper()
	b.pushAs(t, version, version)
}

// pushAs publishes the bundled hello-web version under tag, which a
// publisher's mistake (or an attacker) can make another version.
func (b *bundle) pushAs(t *testing.T, tag, version string) {
	t.Helper()
	bnd, err := drivers.LoadBundle(b.ctx, bundledtest.AsVersion(t, "hello-web", version), ".")
	require.NoError(t, err)
	archive, err := catalog.Pack(bnd.Files)
	require.NoError(t, err)
	_, err = b.publisher.Push(b.ctx, b.repo.WithReference(tag), archive, oci.BundleConfig{Name: "hello-web", Version: version, Digest: bnd.Digest()})
	require.NoError(t, err)
}

// sign signs version with the key pair, as `styrmin driver sign` does.
func (b *bundle) sign(t *testing.T, version string, kp *oci.KeyPair) {
	t.Helper()
	s, err := oci.LoadSigner(kp.Private, nil)
	require.NoError(t, err)
	_, err = b.publisher.Sign(b.ctx, b.repo.WithReference(version), s)
	require.NoError(t, err)
}

// keyPairs are an author's and an attacker's, made once (scrypt is slow on purpose).
var keyPairs = sync.OnceValues(func() ([]*oci.KeyPair, error) {
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

// versionsByTag are the versions a source read, by tag.
func versionsByTag(t *testing.T, b *bundle, name string) map[string]source.Version {
	t.Helper()
	vs, err := b.sources.Versions(b.ctx, name)
	require.NoError(t, err)
	out := map[string]source.Version{}
	for _, v := range vs {
		out[v.Tag] = v
	}
	return out
}

func TestASourceImportsTheSignedVersionAndRefusesTamperedAndUnsignedOnesWithWhy(t *testing.T) {
	t.Parallel()
	b := setup(t, release.ChartFetcher{}, true)
	pairs, err := keyPairs()
	require.NoError(t, err)
	alice, mallory := pairs[0], pairs[1]

	b.push(t, "1.0.1")
	b.sign(t, "1.0.1", alice)
	b.push(t, "1.0.2") // a copy pushed by someone else, signed with their own key
	b.sign(t, "1.0.2", mallory)
	b.push(t, "1.0.3") // unsigned

	_, err = b.sources.Add(b.ctx, source.NewSource{Name: "acme", URL: b.repo.String(), SignedOnly: true,
		Keys: []source.Key{{Name: "alice", PEM: string(alice.Public)}}}, "admin")
	require.NoError(t, err)
	synced, err := b.sources.SyncDue(b.ctx)
	require.NoError(t, err)
	require.True(t, synced)

	got := versionsByTag(t, b, "acme")
	require.Len(t, got, 3)
	require.Equal(t, source.Imported, got["1.0.1"].Status, got["1.0.1"].Reason)
	require.Equal(t, "alice", got["1.0.1"].SignedBy)
	require.Equal(t, source.Refused, got["1.0.2"].Status)
	require.Contains(t, got["1.0.2"].Reason, "bad signature")
	require.Equal(t, source.Refused, got["1.0.3"].Status)
	require.Contains(t, got["1.0.3"].Reason, "unsigned")

	v, err := b.cat.Get(b.ctx, "hello-web", "1.0.1")
	require.NoError(t, err)
	require.Equal(t, catalog.Origin{Source: "acme", SignedBy: "alice"}, v.Origin)
	for _, refused := range []string{"1.0.2", "1.0.3"} {
		_, err = b.cat.Get(b.ctx, "hello-web", refused)
		require.Equal(t, styrmin.ENOTFOUND, styrmin.ErrorCode(err), "a refused version is not in the catalogue, so nothing can deploy it")
	}

	// Synced: not due again until SyncEvery has passed, unless an admin asks.
	synced, err = b.sources.SyncDue(b.ctx)
	require.NoError(t, err)
	require.False(t, synced)
	b.push(t, "1.0.4")
	b.sign(t, "1.0.4", alice)
	require.NoError(t, b.sources.RequestSync(b.ctx, "acme"))
	synced, err = b.sources.SyncDue(b.ctx)
	require.NoError(t, err)
	require.True(t, synced)
	got = versionsByTag(t, b, "acme")
	require.Len(t, got, 4, "tags read before are not read again")
	require.Equal(t, source.Imported, got["1.0.4"].Status)

	src, err := b.sources.Get(b.ctx, "acme")
	require.NoError(t, err)
	require.Empty(t, src.SyncError)
	require.False(t, src.SyncedAt.IsZero())
}

func TestASourceVersionBeyondTheDownloadBudgetIsRefused(t *testing.T) {
	t.Parallel()
	b := setup(t, release.ChartFetcher{MaxBytes: 1 << 10}, true)
	b.push(t, "1.0.1")
	_, err := b.sources.Add(b.ctx, source.NewSource{Name: "open", URL: b.repo.String()}, "admin")
	require.NoError(t, err)
	_, err = b.sources.SyncDue(b.ctx)
	require.NoError(t, err)
	got := versionsByTag(t, b, "open")["1.0.1"]
	require.Equal(t, source.Refused, got.Status)
	require.Contains(t, got.Reason, "is larger than 1 KiB")
	_, err = b.cat.Get(b.ctx, "hello-web", "1.0.1")
	require.Equal(t, styrmin.ENOTFOUND, styrmin.ErrorCode(err))
}

func TestASourceRefusesATagThatHoldsAnotherVersionAndABrokenBundleWithWhy(t *testing.T) {
	t.Parallel()
	b := setup(t, release.ChartFetcher{}, true)
	b.pushAs(t, "1.0.9", "1.0.1")
	broken, err := catalog.Pack(map[string][]byte{drivers.SpecFile: []byte("apiVersion: styrmin.io/v1\nkind: Driver\n")})
	require.NoError(t, err)
	_, err = b.publisher.Push(b.ctx, b.repo.WithReference("2.0.0"), broken, oci.BundleConfig{Name: "hello-web", Version: "2.0.0"})
	require.NoError(t, err)
	_, err = b.sources.Add(b.ctx, source.NewSource{Name: "open", URL: b.repo.String()}, "admin")
	require.NoError(t, err)
	_, err = b.sources.SyncDue(b.ctx)
	require.NoError(t, err, "refused versions are not a failed sync")

	got := versionsByTag(t, b, "open")
	require.Equal(t, source.Refused, got["1.0.9"].Status)
	require.Equal(t, "not a valid bundle: the tag 1.0.9 holds version 1.0.1 of hello-web; a tag must be the version it holds", got["1.0.9"].Reason)
	require.Equal(t, source.Refused, got["2.0.0"].Status)
	require.Equal(t, "not a valid bundle: the bundle breaks the driver contract (styrmin driver lint shows how)", got["2.0.0"].Reason)
	for _, version := range []string{"1.0.1", "1.0.9", "2.0.0"} {
		_, err = b.cat.Get(b.ctx, "hello-web", version)
		require.Equal(t, styrmin.ENOTFOUND, styrmin.ErrorCode(err), version)
	}

	page, err := b.audit.List(b.ctx, audit.Viewer{Admin: true}, audit.Filter{Action: audit.ActionSourceImport, Outcome: audit.Refused})
	require.NoError(t, err)
	targets := map[string]string{}
	for _, e := range page.Entries {
		targets[e.Detail["tag"]] = e.Target.Name
	}
	require.Equal(t, map[string]string{"1.0.9": "hello-web", "2.0.0": ""}, targets,
		"the audit entry names the driver the archive holds when it loaded")
}

func TestASourceAtALoopbackHostNoAdminAllowedIsNotRead(t *testing.T) {
	t.Parallel()
	b := setup(t, release.ChartFetcher{}, false)
	b.push(t, "1.0.1")
	_, err := b.sources.Add(b.ctx, source.NewSource{Name: "inside", URL: b.repo.String()}, "admin")
	require.NoError(t, err)
	_, err = b.sources.SyncDue(b.ctx)
	require.Equal(t, styrmin.EINVALID, styrmin.ErrorCode(err))
	src, err := b.sources.Get(b.ctx, "inside")
	require.NoError(t, err)
	require.Contains(t, src.SyncError, "resolves to a loopback address")
	require.Empty(t, versionsByTag(t, b, "inside"))
}

func TestAddingASourceChecksEveryField(t *testing.T) {
	t.Parallel()
	b := setup(t, release.ChartFetcher{}, true)
	pairs, err := keyPairs()
	require.NoError(t, err)
	good := source.NewSource{Name: "acme", URL: b.repo.String(), SignedOnly: true, Keys: []source.Key{{Name: "alice", PEM: string(pairs[0].Public)}}}
	for _, tt := range []struct {
		edit  func(*source.NewSource)
		field string
	}{
		{func(s *source.NewSource) { s.Name = "Acme Drivers" }, "name"},
		{func(s *source.NewSource) { s.URL = "https://" + b.host }, "url"},
		{func(s *source.NewSource) { s.URL = b.repo.String() + ":1.0.0" }, "url"},
		{func(s *source.NewSource) { s.URL = "https://" + b.host + "/drivers/" }, "url"},
		{func(s *source.NewSource) { s.URL = "https://" + b.host + "/index.yaml?token=x" }, "url"},
		{func(s *source.NewSource) { s.Kind = source.KindIndex }, "url"},
		{func(s *source.NewSource) { s.Kind = "helm" }, "kind"},
		{func(s *source.NewSource) { s.Keys = nil }, "keys"},
		{func(s *source.NewSource) { s.Keys[0].PEM = "not a key" }, "keys"},
		{func(s *source.NewSource) { s.Keys = append(s.Keys, s.Keys[0]) }, "keys"},
	} {
		ns := good
		ns.Keys = append([]source.Key{}, good.Keys...)
		tt.edit(&ns)
		_, err := b.sources.Add(b.ctx, ns, "admin")
		require.Equal(t, styrmin.EINVALID, styrmin.ErrorCode(err), tt.field)
		require.Contains(t, styrmin.ErrorFields(err), tt.field)
	}
	_, err = b.sources.Add(b.ctx, good, "admin")
	require.NoError(t, err)
	_, err = b.sources.Add(b.ctx, good, "admin")
	require.Equal(t, styrmin.ECONFLICT, styrmin.ErrorCode(err))
	require.NoError(t, b.sources.Delete(b.ctx, "acme"))
	require.Equal(t, styrmin.ENOTFOUND, styrmin.ErrorCode(b.sources.Delete(b.ctx, "acme")))
}
