package schedule_test

import (
	"bytes"
	"context"
	"log/slog"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/styrmin/styrmin/deployment"
	"github.com/styrmin/styrmin/schedule"
)

// storageAction is a backup to outside storage whose prune needs the
// storage's key too: both declare the secret prompt storage_key (the backup
// also a plain bucket, the prune a secret it may go without).
const storageAction = `
- name: backup
  title: Back up
  hook: manual
  function: "actions:backup"
  artefacts: {prune: prune}
  prompts:
    - {name: bucket, type: string, default: nightly}
    - {name: storage_key, type: secret}
- name: prune
  title: Prune
  hook: manual
  function: "actions:prune"
  prompts:
    - {name: keep_last, type: integer, default: 7, min: 0}
    - {name: keep_days, type: integer, default: 0, min: 0}
    - {name: bucket, type: string, default: nightly}
    - {name: storage_key, type: secret, required: true}
    - {name: alert_token, type: secret}
`

// storagePy is its Python module.
const storagePy = `
def backup(bucket, storage_key=""):
    pass

def prune(keep_last, keep_days, bucket, storage_key, alert_token=""):
    pass
`

// storageKey is the secret the storage schedules hold.
const storageKey = "st0rage-k3y-5521"

// TestThePruneGetsTheSchedulesSecretPromptSealedAndNeverInClear: the
// prune after a scheduled backup gets the schedule's value of the secret
// prompt both declare, unsealed only when it is queued and sealed at the
// prune's task as a run's secret prompts are; the value is nowhere in
// clear: not in a row of the schedules, their runs, the tasks or the audit
// log, nor in the runner's log.
func TestThePruneGetsTheSchedulesSecretPromptSealedAndNeverInClear(t *testing.T) {
	t.Parallel()
	b := setupWith(t, storageAction, storagePy)
	ctx := context.Background()
	var logs bytes.Buffer
	b.runner = schedule.NewRunner(b.pool, b.env.Deployments, b.box, slog.New(slog.NewTextHandler(&logs, &slog.HandlerOptions{Level: slog.LevelDebug})))
	b.runner.Now = b.clock.Now
	_, err := b.svc.Create(ctx, schedule.Create{Deployment: "cache", Action: "backup", Cron: "0 * * * *", Zone: "UTC",
		Prompts: deployment.JSONInput{"bucket": "offsite", "storage_key": storageKey}, Author: b.olga.ID, Retention: schedule.Retention{KeepLast: 2}})
	require.NoError(t, err)

	b.endTask(t, b.runSlot(t, 10), "succeeded")
	require.Equal(t, 1, must(b.runner.PruneAfterRuns(ctx)))
	sc := b.only(t)
	require.NotZero(t, sc.LastPruneTaskID, sc.LastPruneOutcome)
	prune, err := b.env.Deployments.Task(ctx, "cache", sc.LastPruneTaskID)
	require.NoError(t, err)
	require.Equal(t, &deployment.ActionInputs{Action: "prune", Prompts: map[string]any{"keep_last": float64(2), "keep_days": float64(0), "bucket": "offsite"}}, prune.Inputs,
		"the plain prompts: the retention and the shared bucket")
	var sealed []byte
	require.NoError(t, b.pool.QueryRow(ctx, `SELECT secret_inputs FROM tasks WHERE id = $1`, prune.ID).Scan(&sealed))
	opened, err := b.box.OpenValues(sealed, deployment.TaskSecretsAt(prune.ID, prune.DeploymentID))
	require.NoError(t, err)
	require.Equal(t, map[string]string{"storage_key": storageKey}, opened, "the shared secret, sealed at the prune's task; alert_token, which the schedule lacks and the prune may go without, is not given")

	for _, table := range []string{"action_schedules", "action_schedule_runs", "tasks", "audit_entries"} {
		var rows string
		require.NoError(t, b.pool.QueryRow(ctx, `SELECT coalesce(string_agg(row_to_json(x)::text, ' '), '') FROM `+table+` x`).Scan(&rows))
		require.NotContains(t, rows, storageKey, table)
		require.NotContains(t, rows, "st0rage", "no part of it either, in %s", table)
	}
	require.NotContains(t, logs.String(), "st0rage")
}

// TestAPromptThePruneNeedsThatTheScheduleLacksIsRefusedAtItsField: a
// schedule that does not hold a secret the prune requires is refused when
// it is made, at that prompt's field, and so is an edit that would add a
// retention to such a schedule: it would fail at each run instead.
func TestAPromptThePruneNeedsThatTheScheduleLacksIsRefusedAtItsField(t *testing.T) {
	t.Parallel()
	b := setupWith(t, storageAction, storagePy)
	ctx := context.Background()
	key := deployment.PromptField("backup", "storage_key").FormKey()

	_, err := b.svc.Create(ctx, schedule.Create{Deployment: "cache", Action: "backup", Cron: "@daily", Zone: "UTC",
		Prompts: deployment.JSONInput{"bucket": "offsite"}, Author: b.olga.ID, Retention: schedule.Retention{KeepDays: 7}})
	fields := fieldsOf(t, err)
	require.Equal(t, []string{key}, keys(fields))
	require.Contains(t, fields[key], "the prune action prune that follows each run needs this prompt too")
	require.Empty(t, must(b.svc.List(ctx, "cache")), "nothing refused is stored")

	id, err := b.svc.Create(ctx, schedule.Create{Deployment: "cache", Action: "backup", Cron: "@daily", Zone: "UTC",
		Prompts: deployment.JSONInput{"bucket": "offsite"}, Author: b.olga.ID})
	require.NoError(t, err, "without a retention, no prune needs it")
	fields = fieldsOf(t, b.svc.Update(ctx, "cache", id, schedule.Update{KeepLast: ptr(3)}))
	require.Equal(t, []string{key}, keys(fields))
	require.Equal(t, schedule.Retention{}, b.only(t).Retention, "the edit is not stored")
}

// TestASecretIsNeverPassedToAPlainPromptOfThePrune: a prune whose prompt
// of the same name is plain does not get the schedule's secret (it would be
// stored in clear): without a default it is refused at the driver's
// import, with one it keeps it.
func TestASecretIsNeverPassedToAPlainPromptOfThePrune(t *testing.T) {
	t.Parallel()
	plain := strings.Replace(storageAction, "{name: storage_key, type: secret, required: true}", "{name: storage_key, type: string, default: none}", 1)
	b := setupWith(t, plain, storagePy)
	ctx := context.Background()
	_, err := b.svc.Create(ctx, schedule.Create{Deployment: "cache", Action: "backup", Cron: "0 * * * *", Zone: "UTC",
		Prompts: deployment.JSONInput{"storage_key": storageKey}, Author: b.olga.ID, Retention: schedule.Retention{KeepLast: 2}})
	require.NoError(t, err)
	b.endTask(t, b.runSlot(t, 10), "succeeded")
	require.Equal(t, 1, must(b.runner.PruneAfterRuns(ctx)))
	prune, err := b.env.Deployments.Task(ctx, "cache", b.only(t).LastPruneTaskID)
	require.NoError(t, err)
	require.Equal(t, "none", prune.Inputs.(*deployment.ActionInputs).Prompts["storage_key"], "its own default, not the secret")
}
