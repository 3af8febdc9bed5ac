package cli_test

import (
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/styrmin/styrmin/api/client"
	"github.com/styrmin/styrmin/auth"
	"github.com/styrmin/styrmin/cli"
	"github.com/styrmin/styrmin/deployment"
	"github.com/styrmin/styrmin/deployment/deploymenttest"
	"github.com/styrmin/styrmin/executor"
	"github.com/styrmin/styrmin/handlers/handlerstest"
)

func TestArtefactsListsWhatTheRunsProducedWithWhatAPruneDeleted(t *testing.T) {
	t.Parallel()
	d, url := served(t)
	reader := as(t, url, d.TokenFor(t, "reed", auth.ReadOnly))
	d.Install(t, handlerstest.PgInstall("orders"))
	old := deploymenttest.RanAction(t, d.Service, d.Pool, "orders", "take_backup", nil, executor.TaskSucceeded,
		map[string]any{"name": "app-manual-20261201T020000Z.dump", "size_bytes": 2048})
	prune := deploymenttest.RanAction(t, d.Service, d.Pool, "orders", "prune_backups", deployment.JSONInput{"keep_last": 1}, executor.TaskSucceeded,
		map[string]any{"deleted": []string{"app-manual-20261201T020000Z.dump"}})
	deploymenttest.RanAction(t, d.Service, d.Pool, "orders", "take_backup", nil, executor.TaskSucceeded,
		map[string]any{"name": "app-manual-20261202T020000Z.dump"})

	table := reader.ok(t, "artefacts", "orders")
	require.Regexp(t, `(?m)^NAME\s+SIZE \(BYTES\)\s+ACTION\s+TASK\s+BY\s+ENDED\s+PRUNED BY$`, table)
	require.Regexp(t, `(?m)^app-manual-20261202T020000Z\.dump\s+-\s+take_backup\s+\d+\s+alice\s+\d{4}-\S+\s+-$`, table, "newest first, its size unknown")
	require.Regexp(t, `(?m)^app-manual-20261201T020000Z\.dump\s+2048\s+take_backup\s+`+itoa(old)+`\s+alice\s+\S+\s+`+itoa(prune)+`$`, table)

	got := jsonOf[client.Artefacts](t, reader.ok(t, "artefacts", "orders", "-o", "json"))
	require.Len(t, got.Items, 2)
	require.Equal(t, []string{"take_backup"}, got.Actions)
	require.Equal(t, cli.ExitNotFound, reader.run(t, "", "artefacts", "nowhere").code)
}
