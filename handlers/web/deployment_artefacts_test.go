package web_test

import (
	"net/http"
	"strconv"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/styrmin/styrmin/deployment"
	"github.com/styrmin/styrmin/deployment/deploymenttest"
	"github.com/styrmin/styrmin/executor"
	"github.com/styrmin/styrmin/handlers/handlerstest"
)

// TestTheDeploymentPageListsTheArtefactsItsRunsProducedToReadOnlyUsers: a
// read-only user sees, near the schedules, each backup a run of take_backup
// named (its size in binary units, its run linked to the task's page),
// newest first, with the one a later prune listed as deleted marked pruned
// by that run, and the page says what Styrmin cannot know; a driver without
// artefacts shows no such section.
func TestTheDeploymentPageListsTheArtefactsItsRunsProducedToReadOnlyUsers(t *testing.T) {
	t.Parallel()
	d := handlerstest.SetupDeployments(t)
	d.Install(t, handlerstest.PgInstall("orders"))
	backup := func(name string, size any) int64 {
		return deploymenttest.RanAction(t, d.Service, d.Pool, "orders", "take_backup", nil, executor.TaskSucceeded, map[string]any{"name": name, "size_bytes": size})
	}
	old := backup("app-nightly-20261201T020000Z.dump", 1536)
	prune := deploymenttest.RanAction(t, d.Service, d.Pool, "orders", "prune_backups", deployment.JSONInput{"keep_last": 1}, executor.TaskSucceeded,
		map[string]any{"kept": []string{}, "deleted": []string{"app-nightly-20261201T020000Z.dump"}})
	fresh := backup("app-nightly-20261202T020000Z.dump", nil)

	doc := handlerstest.Parse(t, d.Request(d.Reader, http.MethodGet, "/deployments/orders", nil))
	section := doc.Find(`[data-testid="deployment-artefacts"]`)
	require.Equal(t, 1, section.Length())
	require.Contains(t, handlerstest.Text(section), "Produced by these runs of take_backup")
	rows := section.Find("tbody tr")
	require.Equal(t, 2, rows.Length())
	newest, oldest := rows.Eq(0), rows.Eq(1)
	require.Equal(t, "artefact-"+strconv.FormatInt(fresh, 10), newest.AttrOr("data-testid", ""), "newest first")
	require.Equal(t, "app-nightly-20261202T020000Z.dump", handlerstest.Text(newest.Find(`[data-testid="artefact-name"]`)))
	require.Equal(t, "unknown", handlerstest.Text(newest.Find(`[data-testid="artefact-size"]`)))
	require.Zero(t, newest.Find(`[data-testid="artefact-pruned"]`).Length())
	require.Equal(t, "1.5 KiB", handlerstest.Text(oldest.Find(`[data-testid="artefact-size"]`)))
	require.Equal(t, "/deployments/orders/tasks/"+strconv.FormatInt(old, 10), oldest.Find(`[data-testid="artefact-run"]`).AttrOr("href", ""))
	require.Equal(t, "pruned by #"+strconv.FormatInt(prune, 10), handlerstest.Text(oldest.Find(`[data-testid="artefact-pruned"]`)))
	require.Zero(t, section.Find("form, button").Length(), "nothing to change")

	d.Install(t, handlerstest.HelloInstall("site"))
	site := handlerstest.Parse(t, d.Request(d.Reader, http.MethodGet, "/deployments/site", nil))
	require.Zero(t, site.Find(`[data-testid="deployment-artefacts"]`).Length(), "Hello Web declares no artefacts")
}
