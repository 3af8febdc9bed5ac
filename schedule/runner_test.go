package schedule_test

import (
	"context"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/styrmin/styrmin"
	"github.com/styrmin/styrmin/app/apptest"
	"github.com/styrmin/styrmin/audit"
	"github.com/styrmin/styrmin/auth"
	"github.com/styrmin/styrmin/db"
	"github.com/styrmin/styrmin/deployment"
	"github.com/styrmin/styrmin/schedule"
	"github.com/styrmin/styrmin/secrets"
)

// TestTwoWorkersOnOneDatabaseRunEachSlotOnce: two processes' runners, each
// on its own pool and deployment service, look at the same moment after
// each of ten slots; each slot makes one task.
func TestTwoWorkersOnOneDatabaseRunEachSlotOnce(t *testing.T) {
	t.Parallel()
	b := setup(t)
	other := apptest.New(t, apptest.Options{DatabaseURL: b.env.DatabaseURL, SecretKey: b.env.SecretKey, NoBundled: true, NoServer: true})
	runners := []*schedule.Runner{b.runner, newRunner(other, boxOf(t, other.SecretKey), b.clock)}
	b.create(t, schedule.OverlapQueue, schedule.MissedSkip)

	slot := time.Date(2026, 3, 1, 10, 0, 0, 0, time.UTC)
	for i := range 10 {
		b.clock.Set(slot.Add(time.Duration(i)*time.Hour + 5*time.Second))
		taken := make([]int, len(runners))
		var wg sync.WaitGroup
		start := make(chan struct{})
		for j, r := range runners {
			wg.Add(1)
			go func() {
				defer wg.Done()
				<-start
				n, err := r.Tick(context.Background())
				require.NoError(t, err)
				taken[j] = n
			}()
		}
		close(start)
		wg.Wait()
		require.Equal(t, 1, taken[0]+taken[1], "slot %d is taken by one worker (%v)", i, taken)
		require.Equal(t, i+1, b.actionTasks(t), "slot %d makes one task", i)
	}
}

// TestARunIsATaskAttributedToTheScheduleAndItsAuthor: the run is an action
// task like the others, its secret prompt sealed in the task, and its audit
// entry names the author, via the schedule.
func TestARunIsATaskAttributedToTheScheduleAndItsAuthor(t *testing.T) {
	t.Parallel()
	b := setup(t)
	ctx := context.Background()
	id := b.create(t, schedule.OverlapSkip, schedule.MissedSkip)

	n, err := b.runner.Tick(ctx)
	require.NoError(t, err)
	require.Zero(t, n, "nothing is due before the first slot")

	b.clock.Set(time.Date(2026, 3, 1, 10, 0, 3, 0, time.UTC))
	n, err = b.runner.Tick(ctx)
	require.NoError(t, err)
	require.Equal(t, 1, n)
	sc := b.only(t)
	require.NotZero(t, sc.LastTaskID, sc.LastOutcome)
	require.Equal(t, time.Date(2026, 3, 1, 10, 0, 0, 0, time.UTC), sc.LastSlot.UTC())
	require.Equal(t, time.Date(2026, 3, 1, 11, 0, 0, 0, time.UTC), sc.Next[0].UTC(), "the next slot")

	task, err := b.env.Deployments.Task(ctx, "cache", sc.LastTaskID)
	require.NoError(t, err)
	require.Equal(t, deployment.KindAction, task.Kind)
	require.Equal(t, &deployment.ActionInputs{Action: "backup", Prompts: map[string]any{"keep": float64(3)}}, task.Inputs)
	require.Equal(t, "schedule "+itoa(id)+" of olga", task.By)
	var sealed []byte
	require.NoError(t, b.pool.QueryRow(ctx, `SELECT secret_inputs FROM tasks WHERE id = $1`, task.ID).Scan(&sealed))
	opened, err := b.box.OpenValues(sealed, deployment.TaskSecretsAt(task.ID, task.DeploymentID))
	require.NoError(t, err)
	require.Equal(t, map[string]string{"token": secretToken}, opened, "the run has the secret prompt, sealed at its task")

	page, err := b.env.Audit.List(ctx, audit.Viewer{Admin: true}, audit.Filter{Action: audit.ActionDeploymentAction})
	require.NoError(t, err)
	require.Len(t, page.Entries, 1)
	e := page.Entries[0]
	require.Equal(t, audit.Actor{UserID: b.olga.ID, Name: "olga", Via: audit.ViaSchedule, Role: "operator"}, e.Actor)
	require.Equal(t, audit.Allowed, e.Outcome)
	require.Equal(t, audit.Target{Kind: audit.TargetDeployment, Name: "cache"}, e.Target)
	require.Equal(t, map[string]string{"schedule": itoa(id), "action": "backup", "slot": "2026-03-01T10:00:00Z", "task": itoa(task.ID)}, e.Detail)
}

func TestOverlapSkipSkipsWhileTheDeploymentIsBusyAndQueueQueuesBehind(t *testing.T) {
	t.Parallel()
	b := setup(t)
	ctx := context.Background()
	busy, err := b.env.Deployments.Queue(ctx, &deployment.Stop{Name: "cache", By: "alice"})
	require.NoError(t, err)
	skip := b.create(t, schedule.OverlapSkip, schedule.MissedSkip)
	queue := b.create(t, schedule.OverlapQueue, schedule.MissedSkip)

	b.clock.Set(time.Date(2026, 3, 1, 10, 0, 1, 0, time.UTC))
	_, err = b.runner.Tick(ctx)
	require.NoError(t, err)
	list, err := b.svc.List(ctx, "cache")
	require.NoError(t, err)
	require.Equal(t, skip, list[0].ID)
	require.Equal(t, "skipped: the deployment was busy with task "+itoa(busy.TaskID)+" and the overlap policy is skip", list[0].LastOutcome)
	require.Zero(t, list[0].LastTaskID)
	require.Equal(t, queue, list[1].ID)
	require.NotZero(t, list[1].LastTaskID, list[1].LastOutcome)
	require.Equal(t, 1, b.actionTasks(t), "the queue policy's run waits behind the stop")

	finish(t, b.pool, busy.TaskID)
	finish(t, b.pool, list[1].LastTaskID)
	b.clock.Set(time.Date(2026, 3, 1, 11, 0, 1, 0, time.UTC))
	_, err = b.runner.Tick(ctx)
	require.NoError(t, err)
	require.Equal(t, 3, b.actionTasks(t), "idle, both slots run")
}

func TestAfterDowntimeMissedOnceRunsOnceAndMissedSkipRunsNone(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		missed schedule.Missed
		tasks  int
	}{{schedule.MissedOnce, 1}, {schedule.MissedSkip, 0}} {
		t.Run(string(tc.missed), func(t *testing.T) {
			t.Parallel()
			b := setup(t)
			b.create(t, schedule.OverlapQueue, tc.missed)
			b.clock.Set(time.Date(2026, 3, 1, 15, 30, 0, 0, time.UTC)) // no worker ran from 10:00 to 15:30
			n, err := b.runner.Tick(context.Background())
			require.NoError(t, err)
			require.Equal(t, 1, n, "the missed slots are taken at once")
			require.Equal(t, tc.tasks, b.actionTasks(t))
			sc := b.only(t)
			require.Equal(t, time.Date(2026, 3, 1, 16, 0, 0, 0, time.UTC), sc.Next[0].UTC(), "then the next slot")
			if tc.missed == schedule.MissedSkip {
				require.Contains(t, sc.LastOutcome, "missed")
			}
		})
	}
}

func TestAPausedScheduleRunsNothingAndResumesAtItsNextSlot(t *testing.T) {
	t.Parallel()
	b := setup(t)
	ctx := context.Background()
	id := b.create(t, schedule.OverlapQueue, schedule.MissedOnce)
	require.NoError(t, b.svc.Pause(ctx, "cache", id))
	require.Empty(t, b.only(t).Next, "a paused schedule shows no next runs")

	b.clock.Set(time.Date(2026, 3, 1, 14, 30, 0, 0, time.UTC))
	_, err := b.runner.Tick(ctx)
	require.NoError(t, err)
	require.Zero(t, b.actionTasks(t))

	require.NoError(t, b.svc.Resume(ctx, "cache", id))
	sc := b.only(t)
	require.Equal(t, []time.Time{time.Date(2026, 3, 1, 15, 0, 0, 0, time.UTC), time.Date(2026, 3, 1, 16, 0, 0, 0, time.UTC),
		time.Date(2026, 3, 1, 17, 0, 0, 0, time.UTC)}, utc(sc.Next), "the paused slots are not missed ones")
	_, err = b.runner.Tick(ctx)
	require.NoError(t, err)
	require.Zero(t, b.actionTasks(t))

	require.Equal(t, styrmin.ENOTFOUND, codeOf(b.svc.Pause(ctx, "cache", id+100)))
	require.NoError(t, b.svc.Delete(ctx, "cache", id))
	require.Equal(t, styrmin.ENOTFOUND, codeOf(b.svc.Delete(ctx, "cache", id)))
}

// TestARunActsWithItsAuthorsRightsAtEachSlot: once its author is read-only
// or disabled, a schedule's slots are refused, and the audit log says so.
func TestARunActsWithItsAuthorsRightsAtEachSlot(t *testing.T) {
	t.Parallel()
	b := setup(t)
	ctx := context.Background()
	b.create(t, schedule.OverlapQueue, schedule.MissedOnce)
	_, err := b.env.Users.SetRole(ctx, b.olga.ID, auth.ReadOnly)
	require.NoError(t, err)

	b.clock.Set(time.Date(2026, 3, 1, 10, 0, 1, 0, time.UTC))
	_, err = b.runner.Tick(ctx)
	require.NoError(t, err)
	require.Zero(t, b.actionTasks(t))
	require.Equal(t, "refused: the schedule's author, olga, is read-only now and may not run actions", b.only(t).LastOutcome)
	page, err := b.env.Audit.List(ctx, audit.Viewer{Admin: true}, audit.Filter{Action: audit.ActionDeploymentAction})
	require.NoError(t, err)
	require.Len(t, page.Entries, 1)
	require.Equal(t, audit.Refused, page.Entries[0].Outcome)
	require.Equal(t, "olga", page.Entries[0].Actor.Name)
}

// TestASecretPromptStaysSealedInTheTable: the schedule's row holds the
// secret prompt's value nowhere in clear, and its sealed column opens only
// at its own place.
func TestASecretPromptStaysSealedInTheTable(t *testing.T) {
	t.Parallel()
	b := setup(t)
	ctx := context.Background()
	id := b.create(t, schedule.OverlapQueue, schedule.MissedOnce)
	var row string
	var sealed []byte
	require.NoError(t, b.pool.QueryRow(ctx, `SELECT row_to_json(s)::text, secret_prompts FROM action_schedules s WHERE id = $1`, id).Scan(&row, &sealed))
	require.NotContains(t, row, secretToken)
	require.NotContains(t, string(sealed), secretToken)
	require.NotContains(t, row, "t0ken", "no part of it either")

	opened, err := b.box.OpenValues(sealed, schedule.SecretsAt(id))
	require.NoError(t, err)
	require.Equal(t, map[string]string{"token": secretToken}, opened)
	_, err = b.box.OpenValues(sealed, secrets.At("action_schedules", "secret_prompts", id+1))
	require.Error(t, err, "copied to another schedule, it does not open")
	for _, sc := range must(b.svc.List(ctx, "cache")) {
		require.NotContains(t, sc.Prompts, "token", "lists never show a secret prompt")
	}
}

func TestCreateRefusesBadInputsWithAMessagePerField(t *testing.T) {
	t.Parallel()
	b := setup(t)
	ctx := context.Background()
	_, err := b.svc.Create(ctx, schedule.Create{Deployment: "cache", Action: "backup", Cron: "0 25 * * *", Zone: "Europe/Atlantis",
		Overlap: "sometimes", Missed: "twice", Prompts: deployment.JSONInput{"keep": "many"}, Author: b.olga.ID})
	fields := fieldsOf(t, err)
	require.ElementsMatch(t, []string{schedule.FieldCron, schedule.FieldZone, schedule.FieldOverlap, schedule.FieldMissed,
		"prompt.backup.keep", "prompt.backup.token"}, keys(fields))
	require.Contains(t, fields[schedule.FieldZone], "unknown time zone")

	_, err = b.svc.Create(ctx, schedule.Create{Deployment: "cache", Action: "flush", Cron: "0 3 * * *", Zone: "UTC", Author: b.olga.ID})
	require.Equal(t, map[string]string{schedule.FieldAction: `Driver redis 1.6.0 has no manual action "flush".`}, fieldsOf(t, err))

	_, err = b.svc.Create(ctx, schedule.Create{Deployment: "nowhere", Action: "backup", Cron: "0 3 * * *", Zone: "UTC", Author: b.olga.ID})
	require.Equal(t, styrmin.ENOTFOUND, codeOf(err))
}

// TestARotationReSealsTheSecretPromptsAndCountsThem: `styrmin secrets
// rotate` re-seals a schedule's secret prompts under the new key, and a
// rotation that left them out does not finish.
func TestARotationReSealsTheSecretPromptsAndCountsThem(t *testing.T) {
	t.Parallel()
	b := setup(t)
	ctx := context.Background()
	id := b.create(t, schedule.OverlapQueue, schedule.MissedOnce)
	q := db.New(b.pool)
	old, err := secrets.ParseKey(b.env.SecretKey)
	require.NoError(t, err)
	next, err := secrets.ParseKey(secrets.NewKeyText())
	require.NoError(t, err)
	rotating, err := secrets.NewBox(next, old)
	require.NoError(t, err)

	_, err = rotating.ResealAll(ctx, q, deployment.SealedColumns(q, rotating.Header())...)
	require.Error(t, err, "the schedule's secret prompts are still under the old key")
	_, err = rotating.ResealAll(ctx, q, append(deployment.SealedColumns(q, rotating.Header()), schedule.SealedSecrets(q, rotating.Header()))...)
	require.NoError(t, err)

	newOnly, err := secrets.NewBox(next)
	require.NoError(t, err)
	var sealed []byte
	require.NoError(t, b.pool.QueryRow(ctx, `SELECT secret_prompts FROM action_schedules WHERE id = $1`, id).Scan(&sealed))
	opened, err := newOnly.OpenValues(sealed, schedule.SecretsAt(id))
	require.NoError(t, err)
	require.Equal(t, map[string]string{"token": secretToken}, opened)
}
