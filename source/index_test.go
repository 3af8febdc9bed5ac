package source_test

import (
	"fmt"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	styrmin "github.com/styrmin/styrmin"
	"github.com/styrmin/styrmin/catalog"
	"github.com/styrmin/styrmin/handlers/handlerstest"
	"github.com/styrmin/styrmin/release"
	"github.com/styrmin/styrmin/source"
)

// setupIndex is setup with an index site in place of a registry.
func setupIndex(t *testing.T, fetcher release.ChartFetcher) (*bundle, *handlerstest.IndexSite) {
	t.Helper()
	site := handlerstest.NewIndexSite(t)
	fetcher.RootCAs = site.Fetcher.RootCAs
	return newBundle(t, site.Host, fetcher, true), site
}

func TestAnIndexSourceImportsTheSignedArchiveAndRefusesTamperedUnsignedAndMislabelledOnesWithWhy(t *testing.T) {
	t.Parallel()
	b, s := setupIndex(t, release.ChartFetcher{})
	pairs, err := handlerstest.KeyPairs()
	require.NoError(t, err)
	alice, mallory := pairs[0], pairs[1]

	good := handlerstest.Pack(t, "1.0.1")
	s.PublishArchive(t, "1.0.1", good, handlerstest.SignBlob(t, good, alice))
	other := handlerstest.Pack(t, "1.0.2")
	s.PublishArchive(t, "1.0.2", other, handlerstest.SignBlob(t, other, mallory)) // signed with someone else's key
	s.PublishArchive(t, "1.0.3", handlerstest.Pack(t, "1.0.3"), nil)              // unsigned
	s.PublishArchive(t, "1.0.4", handlerstest.Pack(t, "1.0.4"), []byte("not base64!"))
	mislabelled := handlerstest.Pack(t, "1.0.6")
	s.PublishArchive(t, "1.0.5", mislabelled, handlerstest.SignBlob(t, mislabelled, alice)) // listed as 1.0.5, holds 1.0.6
	swapped := handlerstest.Pack(t, "1.0.7")
	s.PublishArchive(t, "1.0.7", swapped, handlerstest.SignBlob(t, swapped, alice))
	s.Put("/drivers/hello-web-1.0.7.tar.gz", good) // the archive changed after the index was written
	s.List(t, source.IndexEntry{Version: "1.0.8", Digest: "md5:1234", URLs: []string{"hello-web-1.0.8.tar.gz"}})
	s.List(t, source.IndexEntry{Version: "1.0.9", Digest: handlerstest.ArchiveDigest(good), URLs: []string{"http://" + s.Host + "/drivers/hello-web-1.0.1.tar.gz"}})

	src, err := b.sources.Add(b.ctx, source.NewSource{Name: "acme", URL: s.URL, SignedOnly: true,
		Keys: []source.Key{{Name: "alice", PEM: string(alice.Public)}}}, "admin")
	require.NoError(t, err)
	require.Equal(t, source.KindIndex, src.Kind, "an https:// address is an index")
	synced, err := b.sources.SyncDue(b.ctx)
	require.NoError(t, err, "refused versions are not a failed sync")
	require.True(t, synced)

	got := versionsByTag(t, b, "acme")
	require.Len(t, got, 8)
	require.Equal(t, source.Imported, got["hello-web@1.0.1"].Status, got["hello-web@1.0.1"].Reason)
	require.Equal(t, "alice", got["hello-web@1.0.1"].SignedBy)
	require.Equal(t, handlerstest.ArchiveDigest(good), got["hello-web@1.0.1"].Digest)
	for tag, reason := range map[string]string{
		"hello-web@1.0.2": "bad signature: no signature by one of the source's keys signs this content",
		"hello-web@1.0.3": "unsigned: the source requires a signature by one of its keys",
		"hello-web@1.0.4": "bad signature: no signature by one of the source's keys signs this content",
		"hello-web@1.0.5": "not a valid bundle: the index lists hello-web 1.0.5, but the archive holds hello-web 1.0.6; " +
			"an entry must be the driver and version its archive holds",
		"hello-web@1.0.7": "digest mismatch: its sha256 is " + handlerstest.ArchiveDigest(good) + ", not " + handlerstest.ArchiveDigest(swapped) +
			" as the index says: the archive changed, or the index is wrong",
		"hello-web@1.0.8": `not a valid entry: its digest "md5:1234" is not sha256: followed by the archive's sha256 in 64 lower-case hex digits`,
	} {
		require.Equal(t, source.Refused, got[tag].Status, tag)
		require.Equal(t, reason, got[tag].Reason, tag)
	}
	require.Equal(t, source.Refused, got["hello-web@1.0.9"].Status)
	require.Contains(t, got["hello-web@1.0.9"].Reason, "is not https or relative to the index")

	v, err := b.cat.Get(b.ctx, "hello-web", "1.0.1")
	require.NoError(t, err)
	require.Equal(t, catalog.Origin{Source: "acme", SignedBy: "alice"}, v.Origin)
	for _, refused := range []string{"1.0.2", "1.0.3", "1.0.4", "1.0.5", "1.0.6", "1.0.7"} {
		_, err = b.cat.Get(b.ctx, "hello-web", refused)
		require.Equal(t, styrmin.ENOTFOUND, styrmin.ErrorCode(err), "version %s was refused: nothing can deploy it", refused)
	}

	// A new entry is read at the next sync; the entries read before are not.
	newer := handlerstest.Pack(t, "1.1.0")
	s.PublishArchive(t, "1.1.0", newer, handlerstest.SignBlob(t, newer, alice))
	require.NoError(t, b.sources.RequestSync(b.ctx, "acme"))
	_, err = b.sources.SyncDue(b.ctx)
	require.NoError(t, err)
	got = versionsByTag(t, b, "acme")
	require.Len(t, got, 9)
	require.Equal(t, source.Imported, got["hello-web@1.1.0"].Status, got["hello-web@1.1.0"].Reason)
}

func TestAnIndexSourceWithoutKeysImportsUnsignedArchives(t *testing.T) {
	t.Parallel()
	b, s := setupIndex(t, release.ChartFetcher{})
	archive := handlerstest.Pack(t, "1.0.1")
	s.Put("/hello-web-1.0.1.tar.gz", archive)
	s.List(t, source.IndexEntry{Version: "1.0.1", Digest: handlerstest.ArchiveDigest(archive), URLs: []string{"https://" + s.Host + "/hello-web-1.0.1.tar.gz"}})
	_, err := b.sources.Add(b.ctx, source.NewSource{Name: "open", Kind: source.KindIndex, URL: s.URL}, "admin")
	require.NoError(t, err)
	_, err = b.sources.SyncDue(b.ctx)
	require.NoError(t, err)
	got := versionsByTag(t, b, "open")["hello-web@1.0.1"]
	require.Equal(t, source.Imported, got.Status, got.Reason)
	require.Empty(t, got.SignedBy)
}

func TestAnIndexArchiveBeyondTheDownloadBudgetIsRefused(t *testing.T) {
	t.Parallel()
	b, s := setupIndex(t, release.ChartFetcher{MaxBytes: 1 << 10})
	s.Publish(t, "1.0.1", nil)
	_, err := b.sources.Add(b.ctx, source.NewSource{Name: "open", URL: s.URL}, "admin")
	require.NoError(t, err)
	_, err = b.sources.SyncDue(b.ctx)
	require.NoError(t, err)
	got := versionsByTag(t, b, "open")["hello-web@1.0.1"]
	require.Equal(t, source.Refused, got.Status)
	require.Contains(t, got.Reason, "is larger than 1 KiB")
}

func TestAnIndexTooLargeListingTooManyVersionsOrOfAnotherShapeIsNotRead(t *testing.T) {
	t.Parallel()
	b, s := setupIndex(t, release.ChartFetcher{})
	var many strings.Builder
	many.WriteString("apiVersion: v1\nentries:\n  hello-web:\n")
	for i := range source.MaxIndexEntries + 1 {
		fmt.Fprintf(&many, "    - {version: 1.0.%d, digest: sha256:00, urls: [a.tar.gz]}\n", i)
	}
	for _, tt := range []struct {
		name, index, why string
	}{
		{"huge", "apiVersion: v1\n# " + strings.Repeat("x", source.MaxIndexBytes), "is larger than 1024 KiB"},
		{"many", many.String(), "lists 1001 versions; a source reads at most 1000"},
		{"helm", "apiVersion: v2\nentries: {}\n", `has apiVersion "v2"; an index has apiVersion: v1`},
		{"html", "<html>not yaml: [</html>", "is not an index"},
		{"gone", "", "cannot be read: the source did not give it"},
	} {
		if tt.index != "" {
			s.Put("/"+tt.name+"/index.yaml", []byte(tt.index))
		}
		_, err := b.sources.Add(b.ctx, source.NewSource{Name: tt.name, URL: "https://" + s.Host + "/" + tt.name + "/index.yaml"}, "admin")
		require.NoError(t, err)
		_, err = b.sources.SyncDue(b.ctx)
		require.Error(t, err, tt.name)
		src, err := b.sources.Get(b.ctx, tt.name)
		require.NoError(t, err)
		require.Contains(t, src.SyncError, tt.why, tt.name)
		require.Empty(t, versionsByTag(t, b, tt.name), tt.name)
	}
}
