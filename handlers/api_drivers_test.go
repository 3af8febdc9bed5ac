package handlers

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"net/url"
	"slices"
	"strings"
	"testing"
	"testing/fstest"

	"github.com/stretchr/testify/require"

	"github.com/styrmin/styrmin/api"
	"github.com/styrmin/styrmin/auth"
	"github.com/styrmin/styrmin/catalog"
)

// apiSampleDriver is a driver file; %s is its version.
const apiSampleDriver = `apiVersion: styrmin.io/v1
kind: Driver
metadata:
  name: sample
  labels: {category: test}
spec:
  version: %s
  supported_versions: ">=1.0.0"
  info:
    title: Sample
    description: A driver for the API tests.
  helm:
    main:
      location: oci://registry.example.com/charts/sample
      version: 1.0.0
`

// importSampleVersions imports versions of the sample driver, each with a
// README that names it.
func importSampleVersions(t *testing.T, cat *catalog.Catalog, versions ...string) {
	t.Helper()
	for _, v := range versions {
		fsys := fstest.MapFS{
			"sample/driver.styrmin.yml": {Data: fmt.Appendf(nil, apiSampleDriver, v)},
			"sample/README.md":          {Data: []byte("# Sample " + v)},
		}
		_, err := cat.ImportFS(context.Background(), fsys, "sample", "test")
		require.NoError(t, err)
	}
}

// decoded decodes a JSON answer, checking its status.
func decoded[T any](t *testing.T, rec *httptest.ResponseRecorder, status int) T {
	t.Helper()
	require.Equal(t, status, rec.Code, rec.Body.String())
	var v T
	require.NoError(t, json.Unmarshal(rec.Body.Bytes(), &v))
	return v
}

func TestAPIDriversComePageByPageByNameAndSearchLikeTheCatalogue(t *testing.T) {
	t.Parallel()
	d := setupDeployments(t)
	cat := d.deps.Drivers.(*catalog.Catalog)
	importSampleVersions(t, cat, "1.0.0", "1.10.0", "1.2.0")
	token := d.tokenFor(t, "reta", auth.ReadOnly)
	listing, err := cat.Listing(context.Background())
	require.NoError(t, err)
	var want []string
	for _, e := range listing.Entries {
		want = append(want, e.Name)
	}
	slices.Sort(want)
	require.Greater(t, len(want), 2)

	var got []string
	pages := 0
	for target := "/api/v1/drivers?limit=2"; target != ""; pages++ {
		page := decoded[api.DriverPage](t, d.call(t, token, http.MethodGet, target, nil), http.StatusOK)
		require.LessOrEqual(t, len(page.Items), 2)
		for _, e := range page.Items {
			got = append(got, e.Name)
			if e.Name == "sample" {
				require.Equal(t, "1.10.0", e.Version, "the newest by semantic version")
				require.Equal(t, 3, e.Versions)
				require.Equal(t, map[string]string{"category": "test"}, e.Labels)
			}
		}
		target = ""
		if page.NextCursor != "" {
			target = "/api/v1/drivers?limit=2&cursor=" + url.QueryEscape(page.NextCursor)
		}
	}
	require.Equal(t, want, got)
	require.Equal(t, (len(want)+1)/2, pages)

	for _, q := range []string{"sample", "database", "nothing-matches-this"} {
		var want []string
		for _, e := range catalog.Search(listing.Entries, q, "") {
			want = append(want, e.Name)
		}
		slices.Sort(want)
		page := decoded[api.DriverPage](t, d.call(t, token, http.MethodGet, "/api/v1/drivers?q="+url.QueryEscape(q), nil), http.StatusOK)
		got := []string{}
		for _, e := range page.Items {
			got = append(got, e.Name)
		}
		require.ElementsMatch(t, want, got, q)
		require.Empty(t, page.NextCursor)
	}
}

func TestAPIDriverVersionsNewestFirstWithTheParsedSpec(t *testing.T) {
	t.Parallel()
	d := setupDeployments(t)
	cat := d.deps.Drivers.(*catalog.Catalog)
	importSampleVersions(t, cat, "1.0.0", "1.10.0", "1.2.0")
	token := d.tokenFor(t, "reta", auth.ReadOnly)

	drv := decoded[api.Driver](t, d.call(t, token, http.MethodGet, "/api/v1/drivers/sample", nil), http.StatusOK)
	require.Equal(t, []string{"1.10.0", "1.2.0", "1.0.0"}, drv.Versions)
	require.Equal(t, "Sample", drv.Title)

	stored, err := cat.Get(context.Background(), "sample", "1.2.0")
	require.NoError(t, err)
	v := decoded[api.DriverVersion](t, d.call(t, token, http.MethodGet, "/api/v1/drivers/sample/versions/1.2.0", nil), http.StatusOK)
	require.Equal(t, stored.Digest, v.Digest)
	require.Equal(t, "# Sample 1.2.0", v.Readme)
	require.Equal(t, "test", v.CreatedBy)
	require.Equal(t, "sample", v.Spec["metadata"].(map[string]any)["name"], "the spec has the field names of driver.styrmin.yml")
	spec := v.Spec["spec"].(map[string]any)
	require.Equal(t, "1.2.0", spec["version"])
	require.Equal(t, ">=1.0.0", spec["supported_versions"])

	for _, target := range []string{"/api/v1/drivers/nope", "/api/v1/drivers/sample/versions/9.9.9"} {
		rec := d.call(t, token, http.MethodGet, target, nil)
		require.Equal(t, http.StatusNotFound, rec.Code, target)
		require.Equal(t, api.ProblemCode("not_found"), problemOf(t, rec).Code)
	}
}

func TestAPIListRequestsOutOfTheDocumentAreRefused(t *testing.T) {
	t.Parallel()
	a := setup(t)
	token := a.tokenFor(t, "reta", auth.ReadOnly)
	for _, tc := range []struct{ target, field string }{
		{"/api/v1/drivers?limit=0", "limit"},
		{"/api/v1/drivers?limit=201", "limit"},
		{"/api/v1/drivers?limit=many", "limit"},
		{"/api/v1/drivers?cursor=%21%21not-base64", "cursor"},
		{"/api/v1/deployments?cursor=" + encodeCursor("a string, not a key"), "cursor"},
		{"/api/v1/deployments?include_deleted=perhaps", "include_deleted"},
		{"/api/v1/tasks?status=sleeping", "status"},
		{"/api/v1/tasks?kind=reboot", "kind"},
		{"/api/v1/tasks/twelve", "id"},
	} {
		rec := a.call(t, token, http.MethodGet, tc.target, nil)
		require.Equal(t, http.StatusBadRequest, rec.Code, tc.target)
		p := problemOf(t, rec)
		require.Equal(t, api.ProblemCode("invalid"), p.Code, tc.target)
		require.NotNil(t, p.Fields, "%s: %s", tc.target, p.Detail)
		require.Contains(t, *p.Fields, tc.field, "%s: %s", tc.target, p.Detail)
		require.Less(t, len(p.Detail), 300, "a short message, no schema: %s", p.Detail)
	}

	admin := a.tokenFor(t, "ada", auth.Admin)
	for _, tc := range []struct {
		why, field string
		body       any
	}{
		{"a number for a string", "username", map[string]any{"username": 5, "role": "operator", "password": "a long password"}},
		{"an unknown role", "role", map[string]any{"username": "ann", "role": "boss", "password": "a long password"}},
		{"a required field missing", "password", map[string]any{"username": "ann", "role": "operator"}},
		{"no object", "body", "ann, operator"},
	} {
		rec := a.call(t, admin, http.MethodPost, "/api/v1/users", tc.body)
		require.Equal(t, http.StatusBadRequest, rec.Code, tc.why)
		p := problemOf(t, rec)
		require.NotNil(t, p.Fields, "%s: %s", tc.why, p.Detail)
		require.Contains(t, *p.Fields, tc.field, "%s: %s", tc.why, p.Detail)
		require.Less(t, len(p.Detail), 300, "a short message, no schema: %s", p.Detail)
	}

	huge := map[string]any{"username": "ann", "role": "operator", "password": strings.Repeat("x", maxAPIRequest)}
	rec := a.call(t, admin, http.MethodPost, "/api/v1/users", huge)
	require.Equal(t, http.StatusRequestEntityTooLarge, rec.Code)
	require.Contains(t, problemOf(t, rec).Detail, "larger than the API accepts (1 MiB)")
}
