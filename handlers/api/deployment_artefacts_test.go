package api_test

import (
	"encoding/json"
	"net/http"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/styrmin/styrmin/api"
	"github.com/styrmin/styrmin/deployment"
	"github.com/styrmin/styrmin/deployment/deploymenttest"
	"github.com/styrmin/styrmin/executor"
	"github.com/styrmin/styrmin/handlers/handlerstest"
)

func TestAPIArtefactsAreReadByEveryoneNewestFirstWithWhatAPruneDeleted(t *testing.T) {
	t.Parallel()
	d := setupAPIDeployments(t)
	d.Install(t, handlerstest.PgInstall("orders"))
	old := deploymenttest.RanAction(t, d.Service, d.Pool, "orders", "take_backup", nil, executor.TaskSucceeded,
		map[string]any{"name": "app-manual-20261201T020000Z.dump", "size_bytes": 2048})
	prune := deploymenttest.RanAction(t, d.Service, d.Pool, "orders", "prune_backups", deployment.JSONInput{"keep_last": 1}, executor.TaskSucceeded,
		map[string]any{"kept": []string{}, "deleted": []string{"app-manual-20261201T020000Z.dump"}})
	fresh := deploymenttest.RanAction(t, d.Service, d.Pool, "orders", "take_backup", nil, executor.TaskSucceeded,
		map[string]any{"name": "app-manual-20261202T020000Z.dump", "size_bytes": nil})

	rec := d.Call(t, d.readerToken, http.MethodGet, "/api/v1/deployments/orders/artefacts", nil)
	require.Equal(t, http.StatusOK, rec.Code, rec.Body.String())
	var got api.Artefacts
	require.NoError(t, json.Unmarshal(rec.Body.Bytes(), &got))
	require.Equal(t, []string{"take_backup"}, got.Actions)
	require.False(t, got.More)
	require.Len(t, got.Items, 2)
	require.Equal(t, fresh, got.Items[0].Task, "newest first")
	require.Nil(t, got.Items[0].SizeBytes, "unknown")
	require.Nil(t, got.Items[0].PrunedBy)
	require.Equal(t, old, got.Items[1].Task)
	require.Equal(t, "app-manual-20261201T020000Z.dump", got.Items[1].Name)
	require.EqualValues(t, 2048, *got.Items[1].SizeBytes)
	require.Equal(t, prune, *got.Items[1].PrunedBy)
	require.Equal(t, "take_backup", got.Items[1].Action)
	require.Equal(t, "alice", got.Items[1].By)

	d.Install(t, handlerstest.HelloInstall("site"))
	rec = d.Call(t, d.readerToken, http.MethodGet, "/api/v1/deployments/site/artefacts", nil)
	require.Equal(t, http.StatusOK, rec.Code, rec.Body.String())
	require.JSONEq(t, `{"actions": [], "items": [], "more": false}`, rec.Body.String(), "a driver without artefacts: empty lists, never null")
	refused(t, d.Call(t, d.readerToken, http.MethodGet, "/api/v1/deployments/nope/artefacts", nil), http.StatusNotFound)
}
