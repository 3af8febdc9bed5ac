package deployment_test

import (
	"context"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/styrmin/styrmin"
	"github.com/styrmin/styrmin/deployment"
	"github.com/styrmin/styrmin/deployment/deploymenttest"
	"github.com/styrmin/styrmin/executor"
)

// backupNamed is the result of a take_backup run of the bundled PostgreSQL driver.
func backupNamed(name string, size any) map[string]any {
	return map[string]any{"name": name, "size_bytes": size}
}

func TestArtefactsAreTheNamedResultsOfSucceededRunsNewestFirstWithThoseAPruneDeletedMarked(t *testing.T) {
	t.Parallel()
	f := deploymenttest.Setup(t, nil)
	ctx := context.Background()
	_, err := f.Svc.Queue(ctx, deploymenttest.Postgres("orders"))
	require.NoError(t, err)
	backup := func(status executor.TaskStatus, result any) int64 {
		return deploymenttest.RanAction(t, f.Svc, f.Pool, "orders", "take_backup", deployment.JSONInput{"label": "nightly"}, status, result)
	}
	first := backup(executor.TaskSucceeded, backupNamed("app-nightly-20261201T020000Z.dump", 1024))
	backup(executor.TaskFailed, backupNamed("app-nightly-20261202T020000Z.dump", 2048))
	second := backup(executor.TaskSucceeded, backupNamed("app-nightly-20261203T020000Z.dump", nil))
	backup(executor.TaskSucceeded, nil)                                                                                             // returned nothing
	backup(executor.TaskSucceeded, map[string]any{"name": 42})                                                                      // no name
	deploymenttest.RanAction(t, f.Svc, f.Pool, "orders", "list_backups", nil, executor.TaskSucceeded, backupNamed("app-x.dump", 1)) // declares no artefacts
	prune := deploymenttest.RanAction(t, f.Svc, f.Pool, "orders", "prune_backups", deployment.JSONInput{"keep_last": 1}, executor.TaskSucceeded,
		map[string]any{"kept": []string{"app-nightly-20261203T020000Z.dump"}, "deleted": []string{"app-nightly-20261201T020000Z.dump"}})
	third := backup(executor.TaskSucceeded, backupNamed("app-nightly-20261204T020000Z.dump", 4096))

	got, err := f.Svc.Artefacts(ctx, "orders")
	require.NoError(t, err)
	require.Equal(t, []string{"take_backup"}, got.Actions, "the bundled driver's one action with artefacts")
	require.False(t, got.More)
	require.Len(t, got.Items, 3, "the succeeded runs whose result names an artefact")
	require.Equal(t, []int64{third, second, first}, []int64{got.Items[0].TaskID, got.Items[1].TaskID, got.Items[2].TaskID}, "newest first")
	require.Equal(t, "app-nightly-20261204T020000Z.dump", got.Items[0].Name)
	require.EqualValues(t, 4096, *got.Items[0].SizeBytes)
	require.Nil(t, got.Items[1].SizeBytes, "a size the result did not give is unknown")
	require.Equal(t, "take_backup", got.Items[0].Action)
	require.Equal(t, "alice", got.Items[0].By)
	require.False(t, got.Items[0].At.IsZero())
	require.Zero(t, got.Items[0].PrunedBy)
	require.Zero(t, got.Items[1].PrunedBy, "kept by the prune")
	require.Equal(t, prune, got.Items[2].PrunedBy, "listed by the later prune among those it deleted")
}

func TestArtefactsAreBoundedByAPageAndSayThereAreMore(t *testing.T) {
	t.Parallel()
	f := deploymenttest.Setup(t, nil)
	ctx := context.Background()
	_, err := f.Svc.Queue(ctx, deploymenttest.Postgres("orders"))
	require.NoError(t, err)
	d := deploymenttest.MustGet(t, f, "orders")
	// ArtefactPage + 1 runs, written at once.
	_, err = f.Pool.Exec(ctx, `
WITH runs AS (
    INSERT INTO tasks (deployment_id, kind, status, inputs, created_by, ended_at)
    SELECT $1, 'action', 'succeeded', '{"action": "take_backup", "prompts": {}}', 'alice', now() FROM generate_series(1, $2)
    RETURNING id)
INSERT INTO steps (task_id, position, kind, title, status, detail)
SELECT id, 1, 'hook', 'take_backup', 'succeeded', jsonb_build_object('result', jsonb_build_object('name', 'backup-' || id, 'size_bytes', id))
FROM runs`, d.ID, deployment.ArtefactPage+1)
	require.NoError(t, err)

	got, err := f.Svc.Artefacts(ctx, "orders")
	require.NoError(t, err)
	require.Len(t, got.Items, deployment.ArtefactPage)
	require.True(t, got.More)
	require.Greater(t, got.Items[0].TaskID, got.Items[1].TaskID)
}

func TestArtefactNamesHideTheDeploymentsSecrets(t *testing.T) {
	t.Parallel()
	f := deploymenttest.Setup(t, nil)
	ctx := context.Background()
	_, err := f.Svc.Queue(ctx, deploymenttest.Postgres("orders"))
	require.NoError(t, err)
	// The install's secret parameter, in a result a driver wrote carelessly.
	deploymenttest.RanAction(t, f.Svc, f.Pool, "orders", "take_backup", nil, executor.TaskSucceeded, backupNamed("app-s3cret-password.dump", 1))

	got, err := f.Svc.Artefacts(ctx, "orders")
	require.NoError(t, err)
	require.Len(t, got.Items, 1)
	require.NotContains(t, got.Items[0].Name, "s3cret-password")
	require.Contains(t, got.Items[0].Name, "app-")
}

func TestArtefactsOfADriverWithoutArtefactsAreNoneAndOfAnUnknownDeploymentNotFound(t *testing.T) {
	t.Parallel()
	f := deploymenttest.Setup(t, nil)
	ctx := context.Background()
	_, err := f.Svc.Queue(ctx, deploymenttest.HelloWeb("site"))
	require.NoError(t, err)
	got, err := f.Svc.Artefacts(ctx, "site")
	require.NoError(t, err)
	require.Empty(t, got.Actions)
	require.Empty(t, got.Items)

	_, err = f.Svc.Artefacts(ctx, "nowhere")
	require.Equal(t, styrmin.ENOTFOUND, styrmin.ErrorCode(err))
}
