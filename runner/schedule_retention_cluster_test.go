package runner_test

import (
	"context"
	"log/slog"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/styrmin/styrmin/auth"
	"github.com/styrmin/styrmin/deployment"
	"github.com/styrmin/styrmin/deployment/deploymenttest"
	"github.com/styrmin/styrmin/schedule"
	"github.com/styrmin/styrmin/secrets"
)

// TestAPostgreSQLScheduleEveryMinuteKeepsTheLastTwoBackupsAndOneRestoresOnTheLocalCluster:
// a schedule of take_backup every minute keeping the last 2, its minutes
// taken on a fake clock a day ahead (so the worker's own runner, on the real
// clock, takes none of them) but each run and each prune a real task on the
// local cluster's node: after three runs the list holds the last two
// backups, and restoring the newest brings back a dropped table.
func TestAPostgreSQLScheduleEveryMinuteKeepsTheLastTwoBackupsAndOneRestoresOnTheLocalCluster(t *testing.T) {
	t.Parallel()
	f := deploymenttest.SetupCluster(t)
	ctx := context.Background()
	d, psql := postgresWithNotes(t, f, "pg-keep")

	key, err := secrets.ParseKey(f.Env.SecretKey)
	require.NoError(t, err)
	box, err := secrets.NewBox(key)
	require.NoError(t, err)
	olga, err := f.Env.Users.Create(ctx, auth.NewUser{Username: "olga", Password: "olga-password-1", Role: auth.Operator})
	require.NoError(t, err)
	now := time.Now().UTC().Add(24 * time.Hour).Truncate(time.Minute)
	clock := func() time.Time { return now }
	svc := schedule.NewService(f.Pool, f.Svc, box)
	svc.Now = clock
	runner := schedule.NewRunner(f.Pool, f.Svc, box, slog.Default())
	runner.Now = clock
	_, err = svc.Create(ctx, schedule.Create{Deployment: d.Name, Action: "take_backup", Cron: "* * * * *", Zone: "UTC",
		Prompts: deployment.JSONInput{"label": "minutely"}, Author: olga.ID, Retention: schedule.Retention{KeepLast: 2}})
	require.NoError(t, err)

	var made []string
	var pruned struct{ Kept, Deleted []string }
	for minute := 1; minute <= 3; minute++ {
		now = now.Add(time.Minute)
		n, err := runner.Tick(ctx)
		require.NoError(t, err)
		require.Equal(t, 1, n, "minute %d is due", minute)
		list, err := svc.List(ctx, d.Name)
		require.NoError(t, err)
		require.NotZero(t, list[0].LastTaskID, list[0].LastOutcome)
		var b backup
		actionResult(t, f.WaitTask(t, d.Name, &deployment.Queued{TaskID: list[0].LastTaskID, Deployment: d.Name}), "take_backup", &b)
		require.Positive(t, b.Size)
		made = append(made, b.Name)

		_, err = runner.PruneAfterRuns(ctx)
		require.NoError(t, err)
		var pruneTask *int64
		require.Eventually(t, func() bool {
			err := f.Pool.QueryRow(ctx, `SELECT prune_task_id FROM action_schedule_runs WHERE task_id = $1 AND prune_outcome IS NOT NULL`, list[0].LastTaskID).Scan(&pruneTask)
			return err == nil
		}, time.Minute, 100*time.Millisecond, "the run %d is handled, by this runner or the worker's", list[0].LastTaskID)
		require.NotNil(t, pruneTask, "a prune is queued after run %d", list[0].LastTaskID)
		actionResult(t, f.WaitTask(t, d.Name, &deployment.Queued{TaskID: *pruneTask, Deployment: d.Name}), "prune_backups", &pruned)
	}
	require.Equal(t, made[1:], pruned.Kept, "the last prune keeps the last two backups")
	require.Equal(t, made[:1], pruned.Deleted)

	run := func(action string, prompts deployment.JSONInput, into any) {
		t.Helper()
		task := f.WaitTask(t, d.Name, deploymenttest.Queued(t)(f.Svc.Queue(ctx, &deployment.RunAction{Name: d.Name, Action: action, Prompts: prompts, By: "alice"})))
		actionResult(t, task, action, into)
	}
	var listed []backup
	run("list_backups", deployment.JSONInput{}, &listed)
	require.Len(t, listed, 2, "%+v", listed)
	require.Equal(t, made[1:], []string{listed[0].Name, listed[1].Name})

	psql(`psql -X -v ON_ERROR_STOP=1 -c "DROP TABLE notes"`)
	var restored struct{ Restored string }
	run("restore", deployment.JSONInput{"backup": made[2]}, &restored)
	require.Equal(t, made[2], restored.Restored)
	psql(`got="$(psql -X -At -v ON_ERROR_STOP=1 -c 'SELECT body FROM notes')"`, `echo "read: $got"`, `test "$got" = "worth keeping"`)
}
