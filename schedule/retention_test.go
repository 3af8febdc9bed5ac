package schedule_test

import (
	"context"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/styrmin/styrmin/deployment"
	"github.com/styrmin/styrmin/schedule"
)

// createKeeping schedules backup on cache every hour (UTC), keeping r.
func (b *bundle) createKeeping(t *testing.T, r schedule.Retention) int64 {
	t.Helper()
	id, err := b.svc.Create(context.Background(), schedule.Create{Deployment: "cache", Action: "backup", Cron: "0 * * * *", Zone: "UTC",
		Prompts: deployment.JSONInput{"keep": 3, "token": secretToken}, Author: b.olga.ID, Retention: r})
	require.NoError(t, err)
	return id
}

// endTask ends a task with status, as if a worker had run it.
func (b *bundle) endTask(t *testing.T, id int64, status string) {
	t.Helper()
	_, err := b.pool.Exec(context.Background(), `UPDATE tasks SET status = $2, ended_at = now(), secret_inputs = NULL WHERE id = $1`, id, status)
	require.NoError(t, err)
}

// runSlot moves the clock to the slot at hour and takes it: the run's task.
func (b *bundle) runSlot(t *testing.T, hour int) int64 {
	t.Helper()
	b.clock.Set(time.Date(2026, 3, 1, hour, 0, 3, 0, time.UTC))
	n, err := b.runner.Tick(context.Background())
	require.NoError(t, err)
	require.Equal(t, 1, n)
	sc := b.only(t)
	require.NotZero(t, sc.LastTaskID, sc.LastOutcome)
	return sc.LastTaskID
}

func TestARetentionIsStoredWithTheActionThatPrunes(t *testing.T) {
	t.Parallel()
	b := setup(t)
	b.createKeeping(t, schedule.Retention{KeepLast: 2, KeepDays: 30})
	sc := b.only(t)
	require.Equal(t, schedule.Retention{KeepLast: 2, KeepDays: 30}, sc.Retention)
	require.Equal(t, "prune", sc.PruneAction)
	require.Empty(t, sc.LastPruneOutcome)

	plain := setup(t)
	plain.create(t, schedule.OverlapSkip, schedule.MissedOnce)
	require.Equal(t, schedule.Retention{}, plain.only(t).Retention, "no retention: everything is kept")
	require.Empty(t, plain.only(t).PruneAction)
}

func TestARetentionIsRefusedAtItsFieldOnAnActionWithoutArtefactsOrOutOfRange(t *testing.T) {
	t.Parallel()
	b := setup(t)
	ctx := context.Background()
	create := func(action string, r schedule.Retention) map[string]string {
		prompts := deployment.JSONInput{"keep": 3}
		if action == "backup" {
			prompts["token"] = secretToken
		}
		_, err := b.svc.Create(ctx, schedule.Create{Deployment: "cache", Action: action, Cron: "@daily", Zone: "UTC",
			Prompts: prompts, Author: b.olga.ID, Retention: r})
		return fieldsOf(t, err)
	}
	fields := create("prune", schedule.Retention{KeepDays: 7})
	require.Equal(t, []string{schedule.FieldKeepDays}, keys(fields))
	require.Contains(t, fields[schedule.FieldKeepDays], "action prune declares no artefacts to prune")

	fields = create("backup", schedule.Retention{KeepLast: -1, KeepDays: schedule.MaxKeepDays + 1})
	require.ElementsMatch(t, []string{schedule.FieldKeepLast, schedule.FieldKeepDays}, keys(fields))
	require.Contains(t, fields[schedule.FieldKeepDays], "keep 1 to 3650")

	fields = create("backup", schedule.Retention{KeepLast: 500})
	require.Equal(t, []string{schedule.FieldKeepLast}, keys(fields))
	require.Contains(t, fields[schedule.FieldKeepLast], "the prune action prune refuses this retention (keep_last:", "the driver's own limit of 100")

	list, err := b.svc.List(ctx, "cache")
	require.NoError(t, err)
	require.Empty(t, list, "nothing refused is stored")
}

func TestThePruneIsQueuedOnceAfterASucceededRunAndNeverAfterAFailedOne(t *testing.T) {
	t.Parallel()
	b := setup(t)
	ctx := context.Background()
	id := b.createKeeping(t, schedule.Retention{KeepLast: 2, KeepDays: 30})

	run := b.runSlot(t, 10)
	n, err := b.runner.PruneAfterRuns(ctx)
	require.NoError(t, err)
	require.Zero(t, n, "no prune while the run has not ended")
	require.Equal(t, 1, b.actionTasks(t))

	// The run ends; the prune is queued by whichever of two workers (or
	// later looks, after a crash) takes it first, and only once.
	b.endTask(t, run, "succeeded")
	second := newRunner(b.env, b.box, b.clock)
	var wg sync.WaitGroup
	handled := make([]int, 3)
	for i, r := range []*schedule.Runner{b.runner, second, b.runner} {
		wg.Add(1)
		go func() {
			defer wg.Done()
			handled[i] = must(r.PruneAfterRuns(ctx))
		}()
	}
	wg.Wait()
	require.Equal(t, 1, handled[0]+handled[1]+handled[2], "one look handled the ended run")
	require.Equal(t, 2, b.actionTasks(t), "the run and one prune")
	require.Zero(t, must(b.runner.PruneAfterRuns(ctx)), "a handled run is not handled again")

	sc := b.only(t)
	require.NotZero(t, sc.LastPruneTaskID, sc.LastPruneOutcome)
	require.Equal(t, "queued task "+itoa(sc.LastPruneTaskID), sc.LastPruneOutcome)
	prune, err := b.env.Deployments.Task(ctx, "cache", sc.LastPruneTaskID)
	require.NoError(t, err)
	require.Equal(t, &deployment.ActionInputs{Action: "prune", Prompts: map[string]any{"keep_last": float64(2), "keep_days": float64(30), "keep": float64(3)}}, prune.Inputs,
		"the retention, and the prompt the actions share with the schedule's value")
	require.Equal(t, "schedule "+itoa(id)+" of olga, after task "+itoa(run), prune.By)

	b.endTask(t, sc.LastPruneTaskID, "succeeded")
	failed := b.runSlot(t, 11)
	b.endTask(t, failed, "failed")
	require.Equal(t, 1, must(b.runner.PruneAfterRuns(ctx)))
	require.Equal(t, 3, b.actionTasks(t), "no prune after a failed run")
	require.Equal(t, "not pruned: run task "+itoa(failed)+" failed", b.only(t).LastPruneOutcome)
}

func TestAScheduleWithoutRetentionQueuesNoPrune(t *testing.T) {
	t.Parallel()
	b := setup(t)
	b.create(t, schedule.OverlapSkip, schedule.MissedOnce)
	b.endTask(t, b.runSlot(t, 10), "succeeded")
	require.Zero(t, must(b.runner.PruneAfterRuns(context.Background())))
	require.Equal(t, 1, b.actionTasks(t))
}
