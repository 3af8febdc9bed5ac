package source_test

import (
	"context"
	"testing"

	"github.com/stretchr/testify/require"

	styrmin "github.com/styrmin/styrmin"
	"github.com/styrmin/styrmin/audit"
	"github.com/styrmin/styrmin/catalog"
	"github.com/styrmin/styrmin/db/dbtest"
	"github.com/styrmin/styrmin/drivers"
	"github.com/styrmin/styrmin/handlers/handlerstest"
	"github.com/styrmin/styrmin/oci"
	"github.com/styrmin/styrmin/release"
	"github.com/styrmin/styrmin/source"
)

// bundle is a test's catalogue and sources, reading a registry or an
// index site of handlerstest.
type bundle struct {
	ctx     context.Context
	reg     *handlerstest.Registry
	cat     *catalog.Catalog
	audit   *audit.Store
	sources *source.Service
}

// setup starts a registry on loopback (https, its certificate trusted) and
// a catalogue whose admin allows its host, as Settings, Chart hosts does.
func setup(t *testing.T, fetcher release.ChartFetcher, allowHost bool) *bundle {
	t.Helper()
	reg := handlerstest.NewRegistry(t)
	fetcher.RootCAs = reg.Fetcher.RootCAs
	b := newBundle(t, reg.Repo.Registry, fetcher, allowHost)
	b.reg = reg
	return b
}

// newBundle is a catalogue and sources on a new database reading through
// fetcher, host allowed when allowHost.
func newBundle(t *testing.T, host string, fetcher release.ChartFetcher, allowHost bool) *bundle {
	t.Helper()
	pool := dbtest.New(t)
	b := &bundle{ctx: context.Background(), audit: audit.NewStore(pool), cat: catalog.New(pool, fetcher)}
	if allowHost {
		_, err := b.cat.SetChartHosts(b.ctx, []string{host})
		require.NoError(t, err)
	}
	b.sources = source.New(pool, b.cat, fetcher)
	return b
}

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
	pairs, err := handlerstest.KeyPairs()
	require.NoError(t, err)
	alice, mallory := pairs[0], pairs[1]

	b.reg.Push(t, "1.0.1")
	b.reg.Sign(t, "1.0.1", alice)
	b.reg.Push(t, "1.0.2") // a copy pushed by someone else, signed with their own key
	b.reg.Sign(t, "1.0.2", mallory)
	b.reg.Push(t, "1.0.3") // unsigned

	_, err = b.sources.Add(b.ctx, source.NewSource{Name: "acme", URL: b.reg.Repo.String(), SignedOnly: true,
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
	b.reg.Push(t, "1.0.4")
	b.reg.Sign(t, "1.0.4", alice)
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
	b.reg.Push(t, "1.0.1")
	_, err := b.sources.Add(b.ctx, source.NewSource{Name: "open", URL: b.reg.Repo.String()}, "admin")
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
	b.reg.PushAs(t, "1.0.9", "1.0.1")
	broken, err := catalog.Pack(map[string][]byte{drivers.SpecFile: []byte("apiVersion: styrmin.io/v1\nkind: Driver\n")})
	require.NoError(t, err)
	b.reg.PushArchive(t, "2.0.0", broken, oci.BundleConfig{Name: "hello-web", Version: "2.0.0"})
	_, err = b.sources.Add(b.ctx, source.NewSource{Name: "open", URL: b.reg.Repo.String()}, "admin")
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
	b.reg.Push(t, "1.0.1")
	_, err := b.sources.Add(b.ctx, source.NewSource{Name: "inside", URL: b.reg.Repo.String()}, "admin")
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
	pairs, err := handlerstest.KeyPairs()
	require.NoError(t, err)
	good := source.NewSource{Name: "acme", URL: b.reg.Repo.String(), SignedOnly: true, Keys: []source.Key{{Name: "alice", PEM: string(pairs[0].Public)}}}
	for _, tt := range []struct {
		edit  func(*source.NewSource)
		field string
	}{
		{func(s *source.NewSource) { s.Name = "Acme Drivers" }, "name"},
		{func(s *source.NewSource) { s.URL = "https://" + b.reg.Repo.Registry }, "url"},
		{func(s *source.NewSource) { s.URL = b.reg.Repo.String() + ":1.0.0" }, "url"},
		{func(s *source.NewSource) { s.URL = "https://" + b.reg.Repo.Registry + "/drivers/" }, "url"},
		{func(s *source.NewSource) { s.URL = "https://" + b.reg.Repo.Registry + "/index.yaml?token=x" }, "url"},
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
