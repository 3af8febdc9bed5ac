package web_test

import (
	"context"
	"encoding/json"
	"net/http"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/styrmin/styrmin/auth"
	"github.com/styrmin/styrmin/drivers/bundled/bundledtest"
	"github.com/styrmin/styrmin/handlers/handlerstest"
)

// TestADeploymentOfAnOlderVersionShowsTheUpdateAvailable: once the catalogue
// holds a newer release of its driver (a pre-release is not offered), the
// list, the deployment's page and the API say "update available"; the user
// who may upgrade gets a link to the upgrade form for that version.
func TestADeploymentOfAnOlderVersionShowsTheUpdateAvailable(t *testing.T) {
	t.Parallel()
	d := handlerstest.SetupDeployments(t)
	d.Install(t, handlerstest.HelloInstall("web1"))
	page := handlerstest.Parse(t, d.Request(d.Operator, http.MethodGet, "/deployments", nil))
	require.Empty(t, page.Find(`[data-testid="update-available"]`).Nodes, "1.0.0 is the newest")

	for _, v := range []string{"1.1.0", "1.2.0", "2.0.0-rc.1"} {
		_, err := d.Catalog.ImportFS(context.Background(), bundledtest.AsVersion(t, "hello-web", v), ".", "ada")
		require.NoError(t, err)
	}

	link := handlerstest.Parse(t, d.Request(d.Operator, http.MethodGet, "/deployments", nil)).Find(`[data-testid="update-available"]`)
	require.Equal(t, "update available: 1.2.0", handlerstest.Text(link))
	require.Equal(t, "/deployments/web1/upgrade?driver_version=1.2.0", link.AttrOr("href", ""))
	show := handlerstest.Parse(t, d.Request(d.Operator, http.MethodGet, "/deployments/web1", nil)).Find(`[data-testid="update-available"]`)
	require.Equal(t, "update available: 1.2.0", handlerstest.Text(show))
	require.Equal(t, "/deployments/web1/upgrade?driver_version=1.2.0", show.AttrOr("href", ""))
	form := handlerstest.Parse(t, d.Request(d.Operator, http.MethodGet, "/deployments/web1/upgrade?driver_version=1.2.0", nil))
	require.Equal(t, "1.2.0", form.Find(`select[name="driver_version"] option[selected]`).AttrOr("value", ""), "the link opens the form for that version")

	for _, path := range []string{"/deployments", "/deployments/web1"} {
		badge := handlerstest.Parse(t, d.Request(d.Reader, http.MethodGet, path, nil)).Find(`[data-testid="update-available"]`)
		require.Equal(t, "update available: 1.2.0", handlerstest.Text(badge), "a read-only user sees it on %s", path)
		require.Equal(t, "span", badge.Nodes[0].Data, "without a link to a form they may not use")
	}

	token := d.TokenFor(t, "reta", auth.ReadOnly)
	var list struct {
		Items []struct {
			Name            string  `json:"name"`
			UpdateAvailable *string `json:"update_available"`
		} `json:"items"`
	}
	rec := d.Call(t, token, http.MethodGet, "/api/v1/deployments", nil)
	require.NoError(t, json.Unmarshal(rec.Body.Bytes(), &list), rec.Body.String())
	require.Len(t, list.Items, 1)
	require.Equal(t, "1.2.0", *list.Items[0].UpdateAvailable)
	var one struct {
		UpdateAvailable string `json:"update_available"`
	}
	rec = d.Call(t, token, http.MethodGet, "/api/v1/deployments/web1", nil)
	require.NoError(t, json.Unmarshal(rec.Body.Bytes(), &one), rec.Body.String())
	require.Equal(t, "1.2.0", one.UpdateAvailable)
}
