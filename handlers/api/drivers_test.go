package api_test

import (
	"context"
	"fmt"
	"net/http"
	"net/url"
	"slices"
	"testing"
	"testing/fstest"

	"github.com/styrmin/styrmin/handlers/handlerstest"

	"github.com/stretchr/testify/require"

	"github.com/styrmin/styrmin/api"
	"github.com/styrmin/styrmin/auth"
	"github.com/styrmin/styrmin/catalog"
)

// apiSampleDriver is a driver file; %[1]s is its version.
const apiSampleDriver = `apiVersion: styrmin.io/v1
kind: Driver
metadata:
  name: sample
  labels: {category: test}
spec:
  version: %[1]s
  supported_versions: ">=1.0.0"
  info:
    title: Sample
    description: A driver for the API tests, version %[1]s.
  helm:
    main:
      location: ./chart
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
			"sample/chart/Chart.yaml":   {Data: []byte("apiVersion: v2\nname: sample\nversion: 1.0.0\n")},
		}
		_, err := cat.ImportFS(context.Background(), fsys, "sample", "test")
		require.NoError(t, err)
	}
}

func TestAPIDriversComePageByPageByNameAndSearchLikeTheCatalogue(t *testing.T) {
	t.Parallel()
	d := handlerstest.SetupDeployments(t)
	cat := d.Catalog
	importSampleVersions(t, cat, "1.0.0", "1.10.0", "1.2.0")
	token := d.TokenFor(t, "reta", auth.ReadOnly)
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
		page := decoded[api.DriverPage](t, d.Call(t, token, http.MethodGet, target, nil), http.StatusOK)
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
		page := decoded[api.DriverPage](t, d.Call(t, token, http.MethodGet, "/api/v1/drivers?q="+url.QueryEscape(q), nil), http.StatusOK)
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
	d := handlerstest.SetupDeployments(t)
	cat := d.Catalog
	importSampleVersions(t, cat, "1.0.0", "1.10.0", "1.2.0")
	token := d.TokenFor(t, "reta", auth.ReadOnly)

	drv := decoded[api.Driver](t, d.Call(t, token, http.MethodGet, "/api/v1/drivers/sample", nil), http.StatusOK)
	require.Equal(t, []string{"1.10.0", "1.2.0", "1.0.0"}, drv.Versions)
	require.Equal(t, "Sample", drv.Title)
	require.Equal(t, "A driver for the API tests, version 1.10.0.", drv.Summary, "the driver is described by its newest version")

	stored, err := cat.Get(context.Background(), "sample", "1.2.0")
	require.NoError(t, err)
	v := decoded[api.DriverVersion](t, d.Call(t, token, http.MethodGet, "/api/v1/drivers/sample/versions/1.2.0", nil), http.StatusOK)
	require.Equal(t, stored.Digest, v.Digest)
	require.Equal(t, "# Sample 1.2.0", v.Readme)
	require.Equal(t, "test", v.CreatedBy)
	require.Equal(t, "sample", v.Spec["metadata"].(map[string]any)["name"], "the spec has the field names of driver.styrmin.yml")
	spec := v.Spec["spec"].(map[string]any)
	require.Equal(t, "1.2.0", spec["version"])
	require.Equal(t, ">=1.0.0", spec["supported_versions"])

	for _, target := range []string{"/api/v1/drivers/nope", "/api/v1/drivers/sample/versions/9.9.9"} {
		rec := d.Call(t, token, http.MethodGet, target, nil)
		require.Equal(t, http.StatusNotFound, rec.Code, target)
		require.Equal(t, api.ProblemCode("not_found"), problemOf(t, rec).Code)
	}
}
