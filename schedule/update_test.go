package schedule_test

import (
	"context"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/styrmin/styrmin"
	"github.com/styrmin/styrmin/deployment"
	"github.com/styrmin/styrmin/schedule"
)

// ptr is v's address, for an Update's fields.
func ptr[T any](v T) *T { return &v }

func TestAnEditChangesTheCronPoliciesAndRetentionAndKeepsTheRest(t *testing.T) {
	t.Parallel()
	b := setup(t)
	ctx := context.Background()
	id := b.createKeeping(t, schedule.Retention{KeepLast: 2})

	require.NoError(t, b.svc.Update(ctx, "cache", id, schedule.Update{Cron: ptr("30 4 * * *"), Zone: ptr("Europe/Oslo"),
		Overlap: ptr(schedule.OverlapQueue), Missed: ptr(schedule.MissedSkip), KeepLast: ptr(0), KeepDays: ptr(30)}))
	sc := b.only(t)
	require.Equal(t, "30 4 * * *", sc.Cron)
	require.Equal(t, "Europe/Oslo", sc.Zone)
	require.Equal(t, schedule.OverlapQueue, sc.Overlap)
	require.Equal(t, schedule.MissedSkip, sc.Missed)
	require.Equal(t, schedule.Retention{KeepDays: 30}, sc.Retention)
	require.Equal(t, "prune", sc.PruneAction)
	require.Equal(t, "backup", sc.Action, "the action stays")
	require.EqualValues(t, 3, sc.Prompts["keep"], "and its prompt values")
	require.Equal(t, time.Date(2026, 3, 2, 3, 30, 0, 0, time.UTC), sc.Next[0].UTC(), "the next run is the new cron's first slot after now")

	require.NoError(t, b.svc.Update(ctx, "cache", id, schedule.Update{Cron: ptr("@hourly")}))
	sc = b.only(t)
	require.Equal(t, "@hourly", sc.Cron)
	require.Equal(t, "Europe/Oslo", sc.Zone, "a field left out stays")
	require.Equal(t, schedule.Retention{KeepDays: 30}, sc.Retention)

	require.NoError(t, b.svc.Update(ctx, "cache", id, schedule.Update{KeepDays: ptr(0)}))
	sc = b.only(t)
	require.Equal(t, schedule.Retention{}, sc.Retention, "an empty retention keeps everything")
	require.Empty(t, sc.PruneAction, "and nothing prunes")
}

func TestAnEditIsCheckedAsACreationIs(t *testing.T) {
	t.Parallel()
	b := setup(t)
	ctx := context.Background()
	id := b.create(t, schedule.OverlapSkip, schedule.MissedOnce)
	before := b.only(t)

	err := b.svc.Update(ctx, "cache", id, schedule.Update{Cron: ptr("0 25 * * *"), Zone: ptr("Mars/Olympus"),
		Overlap: ptr(schedule.Overlap("maybe")), Missed: ptr(schedule.Missed("never"))})
	require.ElementsMatch(t, []string{schedule.FieldCron, schedule.FieldZone, schedule.FieldOverlap, schedule.FieldMissed}, keys(fieldsOf(t, err)))

	fields := fieldsOf(t, b.svc.Update(ctx, "cache", id, schedule.Update{KeepLast: ptr(500)}))
	require.Contains(t, fields[schedule.FieldKeepLast], "the prune action prune refuses this retention", "the prune action's own limit")
	require.Equal(t, before, b.only(t), "nothing refused is stored")

	_, err = b.svc.Create(ctx, schedule.Create{Deployment: "cache", Action: "prune", Cron: "@daily", Zone: "UTC",
		Prompts: deployment.JSONInput{"keep": 3}, Author: b.olga.ID})
	require.NoError(t, err)
	list := must(b.svc.List(ctx, "cache"))
	fields = fieldsOf(t, b.svc.Update(ctx, "cache", list[1].ID, schedule.Update{KeepDays: ptr(7)}))
	require.Contains(t, fields[schedule.FieldKeepDays], "action prune declares no artefacts to prune", "no retention on an action without artefacts")

	require.Equal(t, styrmin.ENOTFOUND, codeOf(b.svc.Update(ctx, "cache", id+100, schedule.Update{Cron: ptr("@daily")})))
	require.Equal(t, styrmin.ENOTFOUND, codeOf(b.svc.Update(ctx, "nowhere", id, schedule.Update{Cron: ptr("@daily")})))
}

func TestAPausedScheduleStaysPausedThroughAnEdit(t *testing.T) {
	t.Parallel()
	b := setup(t)
	ctx := context.Background()
	id := b.create(t, schedule.OverlapSkip, schedule.MissedOnce)
	require.NoError(t, b.svc.Pause(ctx, "cache", id))
	require.NoError(t, b.svc.Update(ctx, "cache", id, schedule.Update{Cron: ptr("15 * * * *")}))
	sc := b.only(t)
	require.True(t, sc.Paused)
	require.Empty(t, sc.Next)
	require.NoError(t, b.svc.Resume(ctx, "cache", id))
	require.Equal(t, time.Date(2026, 3, 1, 9, 15, 0, 0, time.UTC), b.only(t).Next[0].UTC(), "resumed on the new cron")
}
