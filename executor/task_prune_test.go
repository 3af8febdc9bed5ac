package executor_test

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/stretchr/testify/require"

	"github.com/styrmin/styrmin/db"
	"github.com/styrmin/styrmin/executor"
)

// day is a day, for ages.
const day = 24 * time.Hour

// chain is a top-level task with a hook step that logged a line, held an
// action token and started a nested task with a step of its own; a webhook
// delivery and a revision name the top-level task.
type chain struct {
	root, nested, hookStep, nestedStep int64
}

// chain records a chain of deployment that ended with status age ago.
func (b bundle) chain(t *testing.T, deployment int64, status executor.TaskStatus, age time.Duration) chain {
	t.Helper()
	ctx := context.Background()
	var c chain
	c.root = b.topLevel(t, deployment)
	c.hookStep = b.step(t, c.root, "hook")
	c.nested = b.insertLinked(t, deployment, "action", c.hookStep, c.root)
	c.nestedStep = b.step(t, c.nested, "helm")
	require.NoError(t, b.q.InsertActionToken(ctx, db.InsertActionTokenParams{TokenHash: []byte{byte(c.root)},
		DeploymentID: deployment, TaskID: c.root, StepID: c.hookStep, ExpiresAt: time.Now()}))
	webhook, err := b.q.InsertWebhook(ctx, db.InsertWebhookParams{Url: "https://hooks.example.com", Events: []string{"succeeded"},
		Deployments: []string{}, Kinds: []string{}, Format: "json", CreatedBy: "test"})
	require.NoError(t, err)
	_, err = b.q.InsertDelivery(ctx, db.InsertDeliveryParams{WebhookID: webhook.ID, DeploymentID: deployment, TaskID: &c.root, Event: "succeeded", Body: []byte("{}")})
	require.NoError(t, err)
	require.NoError(t, b.q.InsertRevision(ctx, db.InsertRevisionParams{DeploymentID: deployment, Revision: int32(c.root),
		TaskID: c.root, DriverVersion: "1.0.0", AppVersion: "1.0.0", Parameters: []byte("{}")}))
	b.end(t, c.root, status, age)
	return c
}

// topLevel inserts a top-level task of deployment, queued.
func (b bundle) topLevel(t *testing.T, deployment int64) int64 {
	t.Helper()
	ctx := context.Background()
	task, err := b.q.InsertTask(ctx, db.InsertTaskParams{DeploymentID: deployment, Kind: "upgrade", Inputs: []byte("{}"), CreatedBy: "test"})
	require.NoError(t, err)
	require.NoError(t, b.q.SetTaskRoot(ctx, task.ID))
	return task.ID
}

// step records a step of kind of task, with a log line.
func (b bundle) step(t *testing.T, task int64, kind db.StepKind) int64 {
	t.Helper()
	ctx := context.Background()
	s, err := b.q.InsertStep(ctx, db.InsertStepParams{TaskID: task, Kind: kind, Title: string(kind)})
	require.NoError(t, err)
	require.NoError(t, b.q.InsertStepLog(ctx, db.InsertStepLogParams{StepID: s.ID, Seq: 1, Level: "INFO", Message: "line"}))
	return s.ID
}

// end makes every task of root's chain one that ended with status age ago.
func (b bundle) end(t *testing.T, root int64, status executor.TaskStatus, age time.Duration) {
	t.Helper()
	_, err := b.pool.Exec(context.Background(), `UPDATE tasks SET status = $2, ended_at = now() - make_interval(secs => $3)
		WHERE root_task_id = $1`, root, status, age.Seconds())
	require.NoError(t, err)
}

// exists says whether task id is still recorded.
func (b bundle) exists(t *testing.T, id int64) bool {
	t.Helper()
	_, err := b.q.GetTask(context.Background(), id)
	if errors.Is(err, pgx.ErrNoRows) {
		return false
	}
	require.NoError(t, err)
	return true
}

// kept says whether the chain is still recorded whole: its tasks, steps and
// log lines; or, when it is not, that none of it is left.
func (b bundle) kept(t *testing.T, c chain) bool {
	t.Helper()
	ctx := context.Background()
	steps, err := b.q.ListSteps(ctx, c.root)
	require.NoError(t, err)
	logs, err := b.q.ListStepLogs(ctx, []int64{c.hookStep, c.nestedStep})
	require.NoError(t, err)
	whole := b.exists(t, c.root) && b.exists(t, c.nested) && len(steps) == 1 && len(logs) == 2
	gone := !b.exists(t, c.root) && !b.exists(t, c.nested) && len(steps) == 0 && len(logs) == 0
	require.True(t, whole || gone, "chain %d is partly pruned", c.root)
	return whole
}

// prunedCounts is an Observer that records each batch Prune reports.
type prunedCounts struct{ batches []int64 }

func (p *prunedCounts) TaskStarted(string)                      {}
func (p *prunedCounts) TaskEnded(string, string, time.Duration) {}
func (p *prunedCounts) TasksPruned(n int64)                     { p.batches = append(p.batches, n) }

func TestPruneDeletesOldEndedChainsWithTheirStepsLogsTokensAndDeliveries(t *testing.T) {
	t.Parallel()
	b := setup(t)
	ctx := context.Background()
	shop, legacy := b.deployment(t, "shop"), b.deployment(t, "legacy")
	old := b.chain(t, shop, executor.TaskFailed, 40*day)
	stillRunning := b.chain(t, shop, executor.TaskSucceeded, 40*day)
	_, err := b.pool.Exec(ctx, `UPDATE tasks SET status = 'running', ended_at = NULL WHERE id = $1`, stillRunning.nested)
	require.NoError(t, err)
	recent := b.chain(t, shop, executor.TaskSucceeded, day)
	lastOfLegacy := b.chain(t, legacy, executor.TaskSucceeded, 400*day)
	e, err := executor.New(b.pool, executor.Options{})
	require.NoError(t, err)

	pruned, err := e.Prune(ctx, time.Now().Add(-30*day), executor.PruneBatch)
	require.NoError(t, err)

	require.Equal(t, executor.Pruned{Chains: 1, Tasks: 2}, pruned)
	require.False(t, b.kept(t, old))
	require.True(t, b.kept(t, stillRunning), "a chain with a running task stays")
	require.True(t, b.kept(t, recent), "a chain within the retention stays")
	require.True(t, b.kept(t, lastOfLegacy), "a deployment's newest task stays, however old")
	deliveries, err := b.q.ListDeliveries(ctx, db.ListDeliveriesParams{WebhookID: 1, PageSize: 10})
	require.NoError(t, err)
	require.Empty(t, deliveries, "the old chain's delivery went with it")
	revisions, err := b.q.ListRevisions(ctx, db.ListRevisionsParams{DeploymentID: shop, MaxRows: 10})
	require.NoError(t, err)
	require.Len(t, revisions, 3, "revisions outlive their task")
	for _, r := range revisions {
		if r.Revision == int32(old.root) {
			require.Nil(t, r.TaskID)
		} else {
			require.NotNil(t, r.TaskID)
		}
	}
	var tokens int
	require.NoError(t, b.pool.QueryRow(ctx, `SELECT count(*) FROM action_tokens WHERE task_id = $1`, old.root).Scan(&tokens))
	require.Zero(t, tokens, "the old chain's action token went with it")
}

func TestPruneDeletesOldestFirstInBoundedBatches(t *testing.T) {
	t.Parallel()
	b := setup(t)
	ctx := context.Background()
	shop := b.deployment(t, "shop")
	ages := []time.Duration{46 * day, 50 * day, 47 * day, 49 * day, 48 * day}
	var chains []chain
	for _, age := range ages {
		chains = append(chains, b.chain(t, shop, executor.TaskSucceeded, age))
	}
	newest := b.chain(t, shop, executor.TaskSucceeded, 45*day)
	observer := &prunedCounts{}
	e, err := executor.New(b.pool, executor.Options{Observer: observer})
	require.NoError(t, err)
	cutOff := time.Now().Add(-30 * day)

	first, err := b.q.PruneTaskChains(ctx, db.PruneTaskChainsParams{EndedBefore: cutOff, MaxChains: 2})
	require.NoError(t, err)
	require.Equal(t, db.PruneTaskChainsRow{Chains: 2, Tasks: 4}, first)
	for i, c := range chains {
		require.Equal(t, ages[i] < 49*day, b.kept(t, c), "the two oldest chains go first")
	}

	pruned, err := e.Prune(ctx, cutOff, 2)
	require.NoError(t, err)
	require.Equal(t, executor.Pruned{Chains: 3, Tasks: 6}, pruned)
	require.Equal(t, []int64{4, 2}, observer.batches, "at most two chains of two tasks a transaction")
	for _, c := range chains {
		require.False(t, b.kept(t, c))
	}
	require.True(t, b.kept(t, newest))
}

func TestPruneOfNoRetentionKeepsEverything(t *testing.T) {
	t.Parallel()
	b := setup(t)
	shop := b.deployment(t, "shop")
	old := b.chain(t, shop, executor.TaskSucceeded, 400*day)
	b.chain(t, shop, executor.TaskSucceeded, 400*day)
	e, err := executor.New(b.pool, executor.Options{})
	require.NoError(t, err)

	e.PruneEvery(context.Background(), 0, time.Millisecond) // returns at once

	require.True(t, b.kept(t, old))
}
