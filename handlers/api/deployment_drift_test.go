package api_test

import (
	"net/http"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/styrmin/styrmin/api"
	"github.com/styrmin/styrmin/auth"
	"github.com/styrmin/styrmin/handlers/handlerstest"
)

// A read-only user reads a deployment's drift; a server that cannot read the
// cluster says Unknown and why, and an unknown name is not found.
func TestAPIDriftIsReadOnlyAndSaysWhyItIsUnknown(t *testing.T) {
	t.Parallel()
	d := handlerstest.SetupDeployments(t)
	d.Install(t, handlerstest.PgInstall("orders"))
	token := d.TokenFor(t, "reta", auth.ReadOnly)

	got := decoded[api.Drift](t, d.Call(t, token, http.MethodGet, "/api/v1/deployments/orders/drift", nil), http.StatusOK)
	require.Equal(t, api.DriftWordUnknown, got.Word)
	require.NotNil(t, got.Reason)
	require.Contains(t, *got.Reason, "No Kubernetes cluster is configured")
	require.Empty(t, got.Objects)

	page := decoded[api.DeploymentPage](t, d.Call(t, token, http.MethodGet, "/api/v1/deployments", nil), http.StatusOK)
	require.NotNil(t, page.Items[0].Drift, "the list shows the newest read")
	require.Equal(t, api.DriftWordUnknown, *page.Items[0].Drift)

	rec := d.Call(t, token, http.MethodGet, "/api/v1/deployments/nope/drift", nil)
	require.Equal(t, http.StatusNotFound, rec.Code)
}
