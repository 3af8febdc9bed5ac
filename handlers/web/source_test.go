package web_test

import (
	"context"
	"net/http"
	"net/url"
	"testing"
	"testing/fstest"

	"github.com/stretchr/testify/require"

	"github.com/styrmin/styrmin/auth"
	"github.com/styrmin/styrmin/handlers/handlerstest"
	"github.com/styrmin/styrmin/source"
)

// TestAnAdminAddsASourceAndEveryoneSeesWhatItImportedAndRefused: the
// catalogue links the Sources page; an admin adds a signed-only source
// there (htmx swaps the page in), and after a sync every signed-in user sees
// each version's status, its signer and why one was refused.
func TestAnAdminAddsASourceAndEveryoneSeesWhatItImportedAndRefused(t *testing.T) {
	t.Parallel()
	a := handlerstest.Setup(t)
	admin, _ := a.As(t, "ada", auth.Admin)
	reader, _ := a.As(t, "rita", auth.ReadOnly)
	pairs, err := handlerstest.KeyPairs()
	require.NoError(t, err)
	reg := handlerstest.NewRegistry(t)
	reg.Push(t, "1.0.1")
	reg.Sign(t, "1.0.1", pairs[0])
	reg.Push(t, "1.0.2") // unsigned

	catalogue := handlerstest.Parse(t, a.Request(reader, http.MethodGet, "/drivers", nil))
	require.Equal(t, "/sources", catalogue.Find(`[data-testid="sources-link"]`).AttrOr("href", ""))
	doc := handlerstest.Parse(t, a.Request(reader, http.MethodGet, "/sources", nil))
	require.NotEmpty(t, doc.Find(`[data-testid="no-sources"]`).Nodes)
	require.Equal(t, "Drivers", handlerstest.Text(doc.Find(`nav [aria-current="page"]`)))

	rec := a.Request(admin, http.MethodPost, "/sources", url.Values{"name": {"acme"}, "url": {reg.Repo.Repository()}, "signed_only": {"true"},
		"key_name": {"alice", ""}, "key_pem": {string(pairs[0].Public), ""}}, "HX-Request", "true")
	require.Equal(t, http.StatusOK, rec.Code, rec.Body.String())
	doc = handlerstest.Parse(t, rec)
	require.Equal(t, "The source acme is added: a worker reads its versions within 15 seconds.", handlerstest.Text(doc.Find(`[data-testid="notice"]`)))
	card := doc.Find(`[data-testid="source-acme"]`)
	require.Equal(t, reg.Repo.Repository(), handlerstest.Text(card.Find(`[data-testid="source-url"]`)))
	require.Contains(t, handlerstest.Text(card.Find(`[data-testid="policy"]`)), "Signed only")
	require.Equal(t, "alice", handlerstest.Text(card.Find(`[data-testid="keys"]`)))
	require.Contains(t, handlerstest.Text(card.Find(`[data-testid="last-sync"]`)), "not yet")
	require.NotEmpty(t, card.Find(`[data-testid="no-versions"]`).Nodes)
	require.Empty(t, doc.Find(`[data-testid="form-error"]`).Nodes)

	reg.SyncSources(t, a.Env)
	doc = handlerstest.Parse(t, a.Request(reader, http.MethodGet, "/sources", nil))
	card = doc.Find(`[data-testid="source-acme"]`)
	require.NotContains(t, handlerstest.Text(card.Find(`[data-testid="last-sync"]`)), "not yet")
	require.Empty(t, card.Find(`[data-testid="sync-error"]`).Nodes)
	signed := card.Find(`[data-testid="version-1.0.1"]`)
	require.Equal(t, "imported", handlerstest.Text(signed.Find(`[data-testid="status"]`)))
	require.Equal(t, "alice", handlerstest.Text(signed.Find(`[data-testid="signed-by"]`)))
	unsigned := card.Find(`[data-testid="version-1.0.2"]`)
	require.Equal(t, "refused", handlerstest.Text(unsigned.Find(`[data-testid="status"]`)))
	require.Equal(t, "unsigned: the source requires a signature by one of its keys", handlerstest.Text(unsigned.Find(`[data-testid="reason"]`)))
	for _, control := range []string{"new-source-form", "sync-source", "delete-source"} {
		require.Empty(t, doc.Find(`[data-testid="`+control+`"]`).Nodes, "a read-only user sees no %s", control)
	}

	version := handlerstest.Parse(t, a.Request(reader, http.MethodGet, "/drivers/hello-web?version=1.0.1", nil))
	require.Equal(t, "acme", handlerstest.Text(version.Find(`[data-testid="origin"] [data-testid="source"]`)), "the version's page names its source")
	require.Equal(t, "signed by alice", handlerstest.Text(version.Find(`[data-testid="signed-by"]`)))
}

func TestAVersionFromNoSourceSaysWhoImportedIt(t *testing.T) {
	t.Parallel()
	a := handlerstest.Setup(t)
	admin, _ := a.As(t, "ada", auth.Admin)
	files := fstest.MapFS{}
	for name, data := range handlerstest.SampleFiles("2.0.0", "", "# Sample") {
		files[name] = &fstest.MapFile{Data: data}
	}
	_, err := a.Catalog.ImportFS(context.Background(), files, ".", "ada")
	require.NoError(t, err)

	doc := handlerstest.Parse(t, a.Request(admin, http.MethodGet, "/drivers/sample?version=2.0.0", nil))
	require.Empty(t, doc.Find(`[data-testid="origin"]`).Nodes)
	require.Contains(t, handlerstest.Text(doc.Find(`.facts`)), "by ada")
}

// TestAnUnsignedVersionOfASourceSaysSo: under a source that allows unsigned
// versions, the page says the version is unsigned rather than naming a signer.
func TestAnUnsignedVersionOfASourceSaysSo(t *testing.T) {
	t.Parallel()
	a := handlerstest.Setup(t)
	reader, _ := a.As(t, "rita", auth.ReadOnly)
	reg := handlerstest.NewRegistry(t)
	reg.Push(t, "1.0.1")
	_, err := a.Sources.Add(context.Background(), source.NewSource{Name: "open", URL: reg.Repo.Repository()}, "ada")
	require.NoError(t, err)
	reg.SyncSources(t, a.Env)

	doc := handlerstest.Parse(t, a.Request(reader, http.MethodGet, "/drivers/hello-web?version=1.0.1", nil))
	require.Equal(t, "open", handlerstest.Text(doc.Find(`[data-testid="origin"] [data-testid="source"]`)))
	require.Equal(t, "unsigned", handlerstest.Text(doc.Find(`[data-testid="signed-by"]`)))
}

func TestARefusedSourceShowsTheFormAgainWithEachErrorAtItsField(t *testing.T) {
	t.Parallel()
	a := handlerstest.Setup(t)
	admin, _ := a.As(t, "ada", auth.Admin)

	rec := a.Request(admin, http.MethodPost, "/sources", url.Values{"name": {"Acme Drivers"}, "url": {"https://registry.example.com/drivers"},
		"signed_only": {"true"}, "key_name": {"bob"}, "key_pem": {"not a key"}}, "HX-Request", "true")

	require.Equal(t, http.StatusUnprocessableEntity, rec.Code)
	doc := handlerstest.Parse(t, rec)
	form := doc.Find(`[data-testid="new-source-form"]`)
	require.Equal(t, "The source is not valid.", handlerstest.Text(form.Find(`[data-testid="form-error"]`)))
	require.Contains(t, handlerstest.Text(form.Find(`[data-testid="error-name"]`)), "lower-case letters")
	require.Contains(t, handlerstest.Text(form.Find(`[data-testid="error-url"]`)), "is not an index's address: write https://HOST/PATH/index.yaml", "an https address is an index")
	require.Contains(t, handlerstest.Text(form.Find(`[data-testid="error-keys"]`)), "key bob: ")
	require.Equal(t, "Acme Drivers", form.Find(`[data-testid="name"]`).AttrOr("value", ""), "the form shows what was typed")
	_, checked := form.Find(`[data-testid="signed-only"]`).Attr("checked")
	require.True(t, checked)
	require.Equal(t, "bob", form.Find(`[data-testid="key-name"]`).First().AttrOr("value", ""))
	require.Equal(t, "not a key", handlerstest.Text(form.Find(`[data-testid="key-pem"]`).First()))
	require.Equal(t, 2, form.Find(`[data-testid="key-slot"]`).Length(), "the typed key and an empty slot")

	a.Request(admin, http.MethodPost, "/sources", url.Values{"name": {"acme"}, "url": {"oci://registry.example.com/drivers/acme"}})
	rec = a.Request(admin, http.MethodPost, "/sources", url.Values{"name": {"acme"}, "url": {"oci://registry.example.com/drivers/other"}})
	require.Equal(t, http.StatusUnprocessableEntity, rec.Code)
	require.Equal(t, "A source named acme exists already.", handlerstest.Text(handlerstest.Parse(t, rec).Find(`[data-testid="error-name"]`)))
}

// TestOnlyAdminsAddSyncAndDeleteSources is the attack: read-only users and
// operators post the admins' forms as crafted requests; each is refused and
// nothing changes.
func TestOnlyAdminsAddSyncAndDeleteSources(t *testing.T) {
	t.Parallel()
	a := handlerstest.Setup(t)
	admin, _ := a.As(t, "ada", auth.Admin)
	reader, _ := a.As(t, "rita", auth.ReadOnly)
	operator, _ := a.As(t, "olga", auth.Operator)
	ctx := context.Background()
	_, err := a.Sources.Add(ctx, source.NewSource{Name: "acme", URL: "oci://registry.example.com/drivers/acme"}, "ada")
	require.NoError(t, err)
	before, err := a.Sources.Get(ctx, "acme")
	require.NoError(t, err)

	for _, who := range []handlerstest.Visitor{reader, operator} {
		rec := a.Request(who, http.MethodPost, "/sources", url.Values{"name": {"mine"}, "url": {"oci://evil.example.com/drivers"}})
		require.Equal(t, http.StatusForbidden, rec.Code)
		require.Equal(t, http.StatusForbidden, a.Request(who, http.MethodPost, "/sources/acme/sync", url.Values{}).Code)
		require.Equal(t, http.StatusForbidden, a.Request(who, http.MethodPost, "/sources/acme/delete", url.Values{}).Code)
		require.Equal(t, http.StatusForbidden, a.Request(who, http.MethodPost, "/sources/acme/update", url.Values{"policy": {"unsigned-allowed"}}).Code)
	}
	list, err := a.Sources.List(ctx)
	require.NoError(t, err)
	require.Len(t, list, 1, "no source was added or deleted")
	require.Equal(t, before.NextSyncAt, list[0].NextSyncAt, "no sync was requested")
	require.Equal(t, before.SignedOnly, list[0].SignedOnly, "no policy was changed")

	rec := a.Request(admin, http.MethodPost, "/sources/acme/sync", url.Values{})
	require.Equal(t, []string{"A sync of acme is requested: a worker reads its new tags within 15 seconds."}, a.Flashes(t, admin, rec))
	rec = a.Request(admin, http.MethodPost, "/sources/acme/delete", url.Values{}, "HX-Request", "true")
	require.Equal(t, http.StatusOK, rec.Code)
	doc := handlerstest.Parse(t, rec)
	require.Equal(t, "The source acme is deleted; the versions it imported stay in the catalogue.", handlerstest.Text(doc.Find(`[data-testid="notice"]`)))
	require.NotEmpty(t, doc.Find(`[data-testid="no-sources"]`).Nodes)
	require.Equal(t, http.StatusNotFound, a.Request(admin, http.MethodPost, "/sources/acme/delete", url.Values{}).Code)
}

// TestAnIndexSourceAddedOnThePageShowsItsKindAndEntries: an https address
// is an index; a kind the address does not fit is an error at its field.
func TestAnIndexSourceAddedOnThePageShowsItsKindAndEntries(t *testing.T) {
	t.Parallel()
	a := handlerstest.Setup(t)
	admin, _ := a.As(t, "ada", auth.Admin)
	site := handlerstest.NewIndexSite(t)
	site.Publish(t, "1.0.1", nil)

	rec := a.Request(admin, http.MethodPost, "/sources", url.Values{"name": {"acme"}, "kind": {"oci"}, "url": {site.URL}}, "HX-Request", "true")
	require.Equal(t, http.StatusUnprocessableEntity, rec.Code)
	doc := handlerstest.Parse(t, rec)
	require.Contains(t, handlerstest.Text(doc.Find(`[data-testid="error-url"]`)), "is not an OCI reference")
	require.Equal(t, "oci", doc.Find(`[data-testid="kind"] option[selected]`).AttrOr("value", ""), "the form keeps the kind chosen")

	rec = a.Request(admin, http.MethodPost, "/sources", url.Values{"name": {"acme"}, "url": {site.URL}}, "HX-Request", "true")
	require.Equal(t, http.StatusOK, rec.Code, rec.Body.String())
	site.SyncSources(t, a.Env)
	card := handlerstest.Parse(t, a.Request(admin, http.MethodGet, "/sources", nil)).Find(`[data-testid="source-acme"]`)
	require.Equal(t, "https index (index.yaml of bundle archives)", handlerstest.Text(card.Find(`[data-testid="kind"]`)))
	require.Equal(t, "imported", handlerstest.Text(card.Find(`[data-testid="version-hello-web@1.0.1"] [data-testid="status"]`)))
}

// TestAnAdminChangesASourcesKeysInPlace: the source's Edit form changes its
// policy and keys without a reload; a refused change shows the form open,
// as typed, each error at its field.
func TestAnAdminChangesASourcesKeysInPlace(t *testing.T) {
	t.Parallel()
	a := handlerstest.Setup(t)
	admin, _ := a.As(t, "ada", auth.Admin)
	pairs, err := handlerstest.KeyPairs()
	require.NoError(t, err)
	_, err = a.Sources.Add(context.Background(), source.NewSource{Name: "acme", URL: "oci://registry.example.com/drivers/acme", SignedOnly: true,
		Keys: []source.Key{{Name: "alice", PEM: string(pairs[0].Public)}}}, "ada")
	require.NoError(t, err)
	doc := handlerstest.Parse(t, a.Request(admin, http.MethodGet, "/sources", nil))
	edit := doc.Find(`[data-testid="source-acme"] [data-testid="edit-source"]`)
	_, open := edit.Attr("open")
	require.False(t, open, "the form is folded until opened")
	_, checked := edit.Find(`[data-testid="policy-signed-only"]`).Attr("checked")
	require.True(t, checked, "the form starts from the source's policy")

	rec := a.Request(admin, http.MethodPost, "/sources/acme/update", url.Values{"policy": {"signed-only"}, "remove_key": {"alice"},
		"key_name": {"bob"}, "key_pem": {"not a key"}}, "HX-Request", "true")
	require.Equal(t, http.StatusUnprocessableEntity, rec.Code)
	edit = handlerstest.Parse(t, rec).Find(`[data-testid="source-acme"] [data-testid="edit-source"]`)
	_, open = edit.Attr("open")
	require.True(t, open, "a refused change shows its form open")
	require.Contains(t, handlerstest.Text(edit.Find(`[data-testid="error-keys"]`)), "key bob: ")
	require.Equal(t, "bob", edit.Find(`[data-testid="key-name"]`).AttrOr("value", ""), "the form shows what was typed")
	_, checked = edit.Find(`[data-testid="remove-key-alice"]`).Attr("checked")
	require.True(t, checked)

	rec = a.Request(admin, http.MethodPost, "/sources/acme/update", url.Values{"policy": {"signed-only"}, "remove_key": {"alice"}}, "HX-Request", "true")
	require.Equal(t, http.StatusUnprocessableEntity, rec.Code)
	require.Contains(t, handlerstest.Text(handlerstest.Parse(t, rec).Find(`[data-testid="error-signed_only"]`)), "needs at least one public key")

	rec = a.Request(admin, http.MethodPost, "/sources/acme/update", url.Values{"policy": {"unsigned-allowed"}, "remove_key": {"alice"},
		"key_name": {"bob"}, "key_pem": {string(pairs[1].Public)}}, "HX-Request", "true")
	require.Equal(t, http.StatusOK, rec.Code, rec.Body.String())
	doc = handlerstest.Parse(t, rec)
	require.Contains(t, handlerstest.Text(doc.Find(`[data-testid="notice"]`)), "The source acme is changed")
	card := doc.Find(`[data-testid="source-acme"]`)
	require.Equal(t, "bob", handlerstest.Text(card.Find(`[data-testid="keys"]`)))
	require.Contains(t, handlerstest.Text(card.Find(`[data-testid="policy"]`)), "Unsigned allowed")
}
