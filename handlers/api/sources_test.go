package api_test

import (
	"context"
	"encoding/json"
	"net/http"
	"testing"

	"github.com/stretchr/testify/require"

	oapi "github.com/styrmin/styrmin/api"
	"github.com/styrmin/styrmin/audit"
	"github.com/styrmin/styrmin/auth"
	"github.com/styrmin/styrmin/handlers/handlerstest"
)

func TestAPIAddsAnIndexSourceAndShowsWhatItImportedAndRefused(t *testing.T) {
	t.Parallel()
	a := handlerstest.Setup(t)
	admin := a.TokenFor(t, "root", auth.Admin)
	reader := a.TokenFor(t, "rita", auth.ReadOnly)
	pairs, err := handlerstest.KeyPairs()
	require.NoError(t, err)
	site := handlerstest.NewIndexSite(t)
	site.Publish(t, "1.0.1", pairs[0])
	site.Publish(t, "1.0.2", nil)
	keys := []oapi.SourceKey{{Name: "alice", Pem: string(pairs[0].Public)}}
	signedOnly := true
	body := oapi.NewSource{Name: "acme", Url: site.URL, SignedOnly: &signedOnly, Keys: &keys}

	require.Equal(t, http.StatusForbidden, a.Call(t, reader, http.MethodPost, "/api/v1/sources", body).Code)
	for kind, field := range map[string]string{"oci": "url", "helm": "kind"} {
		wrong := body
		wrong.Kind = &kind
		p := refused(t, a.Call(t, admin, http.MethodPost, "/api/v1/sources", wrong), http.StatusBadRequest)
		require.Contains(t, fieldsOf(p), field, kind)
	}
	require.Contains(t, fieldsOf(refused(t, a.Call(t, admin, http.MethodPost, "/api/v1/sources",
		oapi.NewSource{Name: "acme", Url: site.URL + "?v=2"}), http.StatusBadRequest))["url"], "https://HOST/PATH/index.yaml")

	rec := a.Call(t, admin, http.MethodPost, "/api/v1/sources", body)
	require.Equal(t, http.StatusCreated, rec.Code, rec.Body.String())
	var added oapi.Source
	require.NoError(t, json.Unmarshal(rec.Body.Bytes(), &added))
	require.Equal(t, oapi.Index, added.Kind, "an https:// address is an index")

	site.SyncSources(t, a.Env)
	rec = a.Call(t, reader, http.MethodGet, "/api/v1/sources/acme", nil)
	require.Equal(t, http.StatusOK, rec.Code, rec.Body.String())
	var got oapi.SourceDetail
	require.NoError(t, json.Unmarshal(rec.Body.Bytes(), &got))
	require.Equal(t, oapi.Index, got.Source.Kind)
	require.Empty(t, got.Source.SyncError)
	byTag := map[string]oapi.SourceVersion{}
	for _, v := range got.Versions {
		byTag[v.Tag] = v
	}
	require.Equal(t, oapi.SourceVersionStatusImported, byTag["hello-web@1.0.1"].Status, byTag["hello-web@1.0.1"].Reason)
	require.Equal(t, "alice", byTag["hello-web@1.0.1"].SignedBy)
	require.Equal(t, oapi.SourceVersionStatusRefused, byTag["hello-web@1.0.2"].Status)
	require.Equal(t, "unsigned: the source requires a signature by one of its keys", byTag["hello-web@1.0.2"].Reason)
}

func TestAPIChangesASourcesPolicyAndKeysForAdminsOnly(t *testing.T) {
	t.Parallel()
	a := handlerstest.Setup(t)
	admin := a.TokenFor(t, "root", auth.Admin)
	operator := a.TokenFor(t, "olga", auth.Operator)
	reader := a.TokenFor(t, "rita", auth.ReadOnly)
	pairs, err := handlerstest.KeyPairs()
	require.NoError(t, err)
	alice := oapi.SourceKey{Name: "alice", Pem: string(pairs[0].Public)}
	bob := oapi.SourceKey{Name: "bob", Pem: string(pairs[1].Public)}
	signedOnly := true
	require.Equal(t, http.StatusCreated, a.Call(t, admin, http.MethodPost, "/api/v1/sources",
		oapi.NewSource{Name: "acme", Url: "oci://registry.example.com/drivers", SignedOnly: &signedOnly, Keys: &[]oapi.SourceKey{alice}}).Code)

	addBob := oapi.SourceChange{AddKeys: &[]oapi.SourceKey{bob}, RemoveKeys: &[]string{"alice"}}
	for _, who := range []string{reader, operator} {
		require.Equal(t, http.StatusForbidden, a.Call(t, who, http.MethodPatch, "/api/v1/sources/acme", addBob).Code, "only admins change a source")
	}
	p := refused(t, a.Call(t, admin, http.MethodPatch, "/api/v1/sources/acme", oapi.SourceChange{RemoveKeys: &[]string{"alice"}}), http.StatusBadRequest)
	require.Contains(t, fieldsOf(p)["signed_only"], "needs at least one public key")
	p = refused(t, a.Call(t, admin, http.MethodPatch, "/api/v1/sources/acme", oapi.SourceChange{RemoveKeys: &[]string{"carol"}}), http.StatusBadRequest)
	require.Equal(t, `the source has no key named "carol" to remove`, fieldsOf(p)["remove_keys"])
	require.Equal(t, http.StatusNotFound, a.Call(t, admin, http.MethodPatch, "/api/v1/sources/nope", addBob).Code)

	rec := a.Call(t, admin, http.MethodPatch, "/api/v1/sources/acme", addBob)
	require.Equal(t, http.StatusOK, rec.Code, rec.Body.String())
	var changed oapi.Source
	require.NoError(t, json.Unmarshal(rec.Body.Bytes(), &changed))
	require.Equal(t, []oapi.SourceKey{bob}, changed.Keys)
	require.True(t, changed.SignedOnly, "a policy left out stays")

	page, err := a.Audit.List(context.Background(), audit.Viewer{Admin: true}, audit.Filter{Action: audit.ActionSourceUpdate, Outcome: audit.Allowed})
	require.NoError(t, err)
	require.Len(t, page.Entries, 1)
	require.Equal(t, "acme", page.Entries[0].Target.Name)
	require.Equal(t, "root", page.Entries[0].Actor.Name)
	require.Equal(t, "bob", page.Entries[0].Detail["added_keys"])
	require.Equal(t, "alice", page.Entries[0].Detail["removed_keys"])
}
