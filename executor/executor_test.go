package executor_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"
	"github.com/stretchr/testify/require"

	"github.com/styrmin/styrmin/db"
	"github.com/styrmin/styrmin/db/dbtest"
	"github.com/styrmin/styrmin/executor"
	"github.com/styrmin/styrmin/executor/executortest"
)

// fast are options that make a test's heartbeats and retries quick.
var fast = executor.Options{HeartbeatEvery: 100 * time.Millisecond, StaleAfter: time.Second, WaitRetry: 2 * time.Second}

// bundle is what a test works with.
type bundle struct {
	pool *pgxpool.Pool
	q    *db.Queries
}

// setup gives the test a database of its own with a driver to deploy.
func setup(t testing.TB) bundle {
	t.Helper()
	return setupOn(t, dbtest.New(t))
}

// setupOn is setup on the database of pool.
func setupOn(t testing.TB, pool *pgxpool.Pool) bundle {
	t.Helper()
	q := db.New(pool)
	_, err := q.InsertDriverVersion(context.Background(), db.InsertDriverVersionParams{
		Name: "demo", Version: "1.0.0", Title: "Demo", Labels: []byte("{}"), Spec: []byte("{}"),
		Digest: "sha256:demo", Bundle: []byte{},
	})
	require.NoError(t, err)
	return bundle{pool: pool, q: q}
}

// deployment inserts a deployment named name.
func (b bundle) deployment(t testing.TB, name string) int64 {
	t.Helper()
	d, err := b.q.InsertDeployment(context.Background(), db.InsertDeploymentParams{
		Name: name, Namespace: name, DriverName: "demo", DriverVersion: "1.0.0", AppVersion: "1.0.0",
		Parameters: []byte("{}"), CreatedBy: "test",
	})
	require.NoError(t, err)
	return d.ID
}

// worker returns a queue able to work tasks and its worker, with runners.
func (b bundle) worker(t testing.TB, runners map[string]executor.Runner, opts executor.Options) (*executor.Executor, *executor.Worker) {
	t.Helper()
	return b.workerHiding(t, runners, opts, nil)
}

// workerHiding is worker with the secrets of each task given by secretsOf.
func (b bundle) workerHiding(t testing.TB, runners map[string]executor.Runner, opts executor.Options, secretsOf executor.SecretsOf) (*executor.Executor, *executor.Worker) {
	t.Helper()
	opts.Work = true
	e, err := executor.New(b.pool, opts)
	require.NoError(t, err)
	w, err := executor.NewWorker(e, runners, secretsOf)
	require.NoError(t, err)
	return e, w
}

// start starts a worker with runners and stops it when the test ends; it
// returns the worker's queue.
func (b bundle) start(t testing.TB, runners map[string]executor.Runner, opts executor.Options) *executor.Executor {
	t.Helper()
	return b.startHiding(t, runners, opts, nil)
}

// startHiding is start with the secrets of each task given by secretsOf.
func (b bundle) startHiding(t testing.TB, runners map[string]executor.Runner, opts executor.Options, secretsOf executor.SecretsOf) *executor.Executor {
	t.Helper()
	e, w := b.workerHiding(t, runners, opts, secretsOf)
	startWorker(t, w)
	return e
}

// startWorker starts w and stops it when the test ends.
func startWorker(t testing.TB, w *executor.Worker) {
	t.Helper()
	require.NoError(t, w.Start(context.Background()))
	t.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		require.NoError(t, w.Stop(ctx))
	})
}

// enqueue commits a task of kind on deployment with its job, as the service does.
func (b bundle) enqueue(t testing.TB, e *executor.Executor, deployment int64, kind string, parentStep *int64, root *int64) int64 {
	t.Helper()
	ctx := context.Background()
	var id int64
	require.NoError(t, pgx.BeginFunc(ctx, b.pool, func(tx pgx.Tx) error {
		q := b.q.WithTx(tx)
		task, err := q.InsertTask(ctx, db.InsertTaskParams{DeploymentID: deployment, Kind: kind, Inputs: []byte("{}"),
			ParentStepID: parentStep, RootTaskID: root, CreatedBy: "test"})
		if err != nil {
			return err
		}
		if err := q.SetTaskRoot(ctx, task.ID); err != nil {
			return err
		}
		id = task.ID
		return e.Enqueue(ctx, tx, task.ID)
	}))
	return id
}

// runnerFunc is a Runner from two functions.
type runnerFunc struct {
	run     func(ctx context.Context, run *executor.Run) (any, error)
	recover func(ctx context.Context, run *executor.Run) (bool, string, error)
}

func (r runnerFunc) Run(ctx context.Context, run *executor.Run) (any, error) { return r.run(ctx, run) }
func (r runnerFunc) Recover(ctx context.Context, run *executor.Run) (bool, string, error) {
	if r.recover == nil {
		return false, "Nothing was changed.", nil
	}
	return r.recover(ctx, run)
}

func TestTaskRecordsItsStepsAndResult(t *testing.T) {
	t.Parallel()
	b := setup(t)
	runner := runnerFunc{run: func(ctx context.Context, run *executor.Run) (any, error) {
		if err := run.Step(ctx, "render", "Render values", func(ctx context.Context, s *executor.Step) error {
			s.Say("3 values")
			return nil
		}); err != nil {
			return nil, err
		}
		err := run.Step(ctx, "wait", "Wait for components", func(ctx context.Context, s *executor.Step) error {
			s.SetDetail(map[string]int{"ready": 2})
			s.Warn("one component is slow")
			return nil
		})
		return map[string]int{"revision": 1}, err
	}}
	e := b.start(t, map[string]executor.Runner{"install": runner}, fast)
	id := b.enqueue(t, e, b.deployment(t, "web"), "install", nil, nil)

	task := executortest.WaitRow(t, b.q, id)
	require.Equal(t, executor.TaskSucceeded, task.Status)
	require.JSONEq(t, `{"revision": 1}`, string(task.Result))
	steps, err := b.q.ListSteps(context.Background(), id)
	require.NoError(t, err)
	require.Len(t, steps, 2)
	require.Equal(t, "Render values", steps[0].Title)
	require.Equal(t, executor.StepSucceeded, steps[0].Status)
	require.Equal(t, "3 values", steps[0].Message)
	require.Equal(t, executor.StepWarning, steps[1].Status)
	require.JSONEq(t, `{"ready": 2}`, string(steps[1].Detail))
	require.NotNil(t, steps[1].EndedAt)
}

func TestEverythingARunRecordsHidesItsSecrets(t *testing.T) {
	t.Parallel()
	b := setup(t)
	runner := runnerFunc{run: func(ctx context.Context, run *executor.Run) (any, error) {
		run.Conceal("minted-token-4711")
		if err := run.Step(ctx, "render", "Render with db-password-1234", func(ctx context.Context, s *executor.Step) error {
			s.Say("rendered db-password-1234 and minted-token-4711")
			s.SetDetail(map[string]any{"notes": []string{"password: db-password-1234"}, "count": 2})
			return nil
		}); err != nil {
			return nil, err
		}
		return map[string]string{"notes": "connect with db-password-1234"}, errors.New("helm: ConfigMap value db-password-1234 refused")
	}}
	secretsOf := func(ctx context.Context, task db.Task) ([]string, error) { return []string{"db-password-1234"}, nil }
	e := b.startHiding(t, map[string]executor.Runner{"install": runner}, fast, secretsOf)
	id := b.enqueue(t, e, b.deployment(t, "web"), "install", nil, nil)

	task := executortest.WaitRow(t, b.q, id)
	require.Equal(t, executor.TaskFailed, task.Status)
	require.Equal(t, "helm: ConfigMap value <redacted> refused", task.Message)
	require.JSONEq(t, `{"notes": "connect with <redacted>"}`, string(task.Result))
	steps, err := b.q.ListSteps(context.Background(), id)
	require.NoError(t, err)
	require.Equal(t, "Render with <redacted>", steps[0].Title)
	require.Equal(t, "rendered <redacted> and <redacted>", steps[0].Message)
	require.JSONEq(t, `{"notes": ["password: <redacted>"], "count": 2}`, string(steps[0].Detail))
}

func TestATaskWhoseSecretsCannotBeReadFailsWithoutRunning(t *testing.T) {
	t.Parallel()
	b := setup(t)
	var ran atomic.Bool
	runner := runnerFunc{run: func(ctx context.Context, run *executor.Run) (any, error) { ran.Store(true); return nil, nil }}
	secretsOf := func(ctx context.Context, task db.Task) ([]string, error) { return nil, errors.New("wrong key") }
	e := b.startHiding(t, map[string]executor.Runner{"install": runner}, fast, secretsOf)
	id := b.enqueue(t, e, b.deployment(t, "web"), "install", nil, nil)

	task := executortest.WaitRow(t, b.q, id)
	require.Equal(t, executor.TaskFailed, task.Status)
	require.Contains(t, task.Message, "could not read this deployment's secrets")
	require.False(t, ran.Load(), "nothing ran that could have recorded a secret in the clear")
}

func TestFailingStepFailsTheTaskWithItsMessage(t *testing.T) {
	t.Parallel()
	b := setup(t)
	runner := runnerFunc{run: func(ctx context.Context, run *executor.Run) (any, error) {
		return nil, run.Step(ctx, "helm", "Helm install", func(ctx context.Context, s *executor.Step) error {
			return errors.New("chart refused: image missing")
		})
	}}
	e := b.start(t, map[string]executor.Runner{"install": runner}, fast)
	id := b.enqueue(t, e, b.deployment(t, "web"), "install", nil, nil)

	task := executortest.WaitRow(t, b.q, id)
	require.Equal(t, executor.TaskFailed, task.Status)
	require.Equal(t, "chart refused: image missing", task.Message)
	steps, err := b.q.ListSteps(context.Background(), id)
	require.NoError(t, err)
	require.Equal(t, executor.StepFailed, steps[0].Status)
	d, err := b.q.GetDeploymentByID(context.Background(), task.DeploymentID)
	require.NoError(t, err)
	require.Nil(t, d.HolderTaskID, "the deployment is free again")
}

func TestPanickingRunnerFailsTheTaskAndFreesTheDeployment(t *testing.T) {
	t.Parallel()
	b := setup(t)
	runner := runnerFunc{run: func(ctx context.Context, run *executor.Run) (any, error) { panic("bug") }}
	e := b.start(t, map[string]executor.Runner{"install": runner}, fast)
	dep := b.deployment(t, "web")
	first := b.enqueue(t, e, dep, "install", nil, nil)
	second := b.enqueue(t, e, dep, "install", nil, nil)

	task := executortest.WaitRow(t, b.q, first)
	require.Equal(t, executor.TaskFailed, task.Status)
	require.Contains(t, task.Message, "internal error")
	require.Equal(t, executor.TaskFailed, executortest.WaitRow(t, b.q, second).Status, "the next task ran")
}

// timeline records when each task ran.
type timeline struct {
	mu    sync.Mutex
	spans map[int64][2]time.Time
	order []int64
}

func (tl *timeline) runner(hold time.Duration) runnerFunc {
	return runnerFunc{run: func(ctx context.Context, run *executor.Run) (any, error) {
		start := time.Now()
		time.Sleep(hold)
		tl.mu.Lock()
		defer tl.mu.Unlock()
		tl.spans[run.Task.ID] = [2]time.Time{start, time.Now()}
		tl.order = append(tl.order, run.Task.ID)
		return nil, nil
	}}
}

func TestTasksOfOneDeploymentRunOneAtATimeInQueueOrder(t *testing.T) {
	t.Parallel()
	b := setup(t)
	tl := &timeline{spans: map[int64][2]time.Time{}}
	e := b.start(t, map[string]executor.Runner{"upgrade": tl.runner(50 * time.Millisecond)}, fast)
	dep := b.deployment(t, "db")

	var ids []int64
	for range 10 {
		ids = append(ids, b.enqueue(t, e, dep, "upgrade", nil, nil))
	}
	for _, id := range ids {
		require.Equal(t, executor.TaskSucceeded, executortest.WaitRow(t, b.q, id).Status)
	}
	require.Equal(t, ids, tl.order, "tasks ran in the order they were queued")
	for i := 1; i < len(ids); i++ {
		prev, cur := tl.spans[ids[i-1]], tl.spans[ids[i]]
		require.False(t, cur[0].Before(prev[1]), "task %d started before task %d ended", ids[i], ids[i-1])
	}
}

func TestTasksOfTwoDeploymentsRunInParallel(t *testing.T) {
	t.Parallel()
	b := setup(t)
	var started sync.WaitGroup
	started.Add(2)
	both := make(chan struct{})
	go func() { started.Wait(); close(both) }()
	runner := runnerFunc{run: func(ctx context.Context, run *executor.Run) (any, error) {
		started.Done()
		select { // each task waits until the other one runs too
		case <-both:
			return nil, nil
		case <-time.After(20 * time.Second):
			return nil, errors.New("the other deployment's task did not run meanwhile")
		}
	}}
	e := b.start(t, map[string]executor.Runner{"upgrade": runner}, fast)
	a := b.enqueue(t, e, b.deployment(t, "a"), "upgrade", nil, nil)
	c := b.enqueue(t, e, b.deployment(t, "c"), "upgrade", nil, nil)
	require.Equal(t, executor.TaskSucceeded, executortest.WaitRow(t, b.q, a).Status)
	require.Equal(t, executor.TaskSucceeded, executortest.WaitRow(t, b.q, c).Status)
}

func TestQueuedTaskShowsItsPositionAndCanBeCancelled(t *testing.T) {
	t.Parallel()
	b := setup(t)
	release := make(chan struct{})
	runner := runnerFunc{run: func(ctx context.Context, run *executor.Run) (any, error) {
		<-release
		return nil, nil
	}}
	e := b.start(t, map[string]executor.Runner{"upgrade": runner}, fast)
	dep := b.deployment(t, "db")
	first := b.enqueue(t, e, dep, "upgrade", nil, nil)
	second := b.enqueue(t, e, dep, "upgrade", nil, nil)
	third := b.enqueue(t, e, dep, "upgrade", nil, nil)
	ctx := context.Background()
	require.Eventually(t, func() bool {
		task, err := b.q.GetTask(ctx, first)
		require.NoError(t, err)
		return task.Status == executor.TaskRunning
	}, 10*time.Second, 20*time.Millisecond)

	pos, err := b.q.QueuePositions(ctx, []int64{first, second, third})
	require.NoError(t, err)
	require.Equal(t, []db.QueuePositionsRow{{TaskID: second, Position: 0}, {TaskID: third, Position: 1}}, pos,
		"one task waits before the third; the running one has no place in the queue")

	require.NoError(t, e.CancelQueued(ctx, second, "Cancelled by alice."))
	require.ErrorIs(t, e.CancelQueued(ctx, first, "too late"), executor.ErrNotQueued)
	close(release)
	require.Equal(t, executor.TaskSucceeded, executortest.WaitRow(t, b.q, first).Status)
	require.Equal(t, executor.TaskCanceled, executortest.WaitRow(t, b.q, second).Status)
	require.Equal(t, executor.TaskSucceeded, executortest.WaitRow(t, b.q, third).Status)
}

func TestNestedTaskRunsWhileItsParentHoldsTheDeployment(t *testing.T) {
	t.Parallel()
	b := setup(t)
	var e *executor.Executor
	parent := runnerFunc{run: func(ctx context.Context, run *executor.Run) (any, error) {
		var nested int64
		err := run.Step(ctx, "hook", "Run backup", func(ctx context.Context, s *executor.Step) error {
			root := run.Task.ID
			nested = b.enqueue(t, e, run.Task.DeploymentID, "stop", &s.ID, &root)
			_, err := executortest.Until(ctx, func(ctx context.Context) (db.Task, error) { return b.q.GetTask(ctx, nested) }, executortest.RowEnded)
			return err
		})
		return map[string]int64{"nested": nested}, err
	}}
	child := runnerFunc{run: func(ctx context.Context, run *executor.Run) (any, error) { return "stopped", nil }}
	e = b.start(t, map[string]executor.Runner{"upgrade": parent, "stop": child}, fast)
	dep := b.deployment(t, "db")
	id := b.enqueue(t, e, dep, "upgrade", nil, nil)
	later := b.enqueue(t, e, dep, "upgrade", nil, nil)

	task := executortest.WaitRow(t, b.q, id)
	require.Equal(t, executor.TaskSucceeded, task.Status, task.Message)
	var result struct{ Nested int64 }
	require.NoError(t, json.Unmarshal(task.Result, &result))
	nested, err := b.q.GetTask(context.Background(), result.Nested)
	require.NoError(t, err)
	require.Equal(t, executor.TaskSucceeded, nested.Status)
	require.True(t, nested.StartedAt.After(*task.StartedAt) && nested.EndedAt.Before(*task.EndedAt), "the nested task ran inside its parent")
	require.Equal(t, executor.TaskSucceeded, executortest.WaitRow(t, b.q, later).Status, "the top-level task queued behind still runs")
}

// crashedTask inserts a task that a dead process left running, with an old
// heartbeat, holding its deployment.
func (b bundle) crashedTask(t *testing.T, deployment int64, kind string) int64 {
	t.Helper()
	ctx := context.Background()
	task, err := b.q.InsertTask(ctx, db.InsertTaskParams{DeploymentID: deployment, Kind: kind, Inputs: []byte("{}"), CreatedBy: "test"})
	require.NoError(t, err)
	require.NoError(t, b.q.SetTaskRoot(ctx, task.ID))
	b.diedRunning(t, task.ID)
	_, err = b.pool.Exec(ctx, `UPDATE deployments SET holder_task_id = $1 WHERE id = $2`, task.ID, deployment)
	require.NoError(t, err)
	return task.ID
}

// diedRunning makes task id one that a dead process left running in a step,
// with an old heartbeat.
func (b bundle) diedRunning(t *testing.T, id int64) {
	t.Helper()
	ctx := context.Background()
	_, err := b.pool.Exec(ctx, `UPDATE tasks SET status = 'running', runner = 'dead:1', lease = 1, started_at = now(), heartbeat_at = now() - interval '1 hour' WHERE id = $1`, id)
	require.NoError(t, err)
	_, err = b.pool.Exec(ctx, `INSERT INTO steps (task_id, position, kind, title) VALUES ($1, 1, 'helm', 'Helm upgrade')`, id)
	require.NoError(t, err)
}

func TestTaskOfADeadProcessEndsFailedWithWhatRecoveryDid(t *testing.T) {
	t.Parallel()
	b := setup(t)
	runner := runnerFunc{
		run: func(ctx context.Context, run *executor.Run) (any, error) { return nil, nil },
		recover: func(ctx context.Context, run *executor.Run) (bool, string, error) {
			return false, "Rolled the release back to revision 1; upgrade again.", nil
		},
	}
	dep := b.deployment(t, "db")
	id := b.crashedTask(t, dep, "upgrade")
	e := b.start(t, map[string]executor.Runner{"upgrade": runner}, fast)
	next := b.enqueue(t, e, dep, "upgrade", nil, nil)

	task := executortest.WaitRow(t, b.q, id)
	require.Equal(t, executor.TaskFailed, task.Status)
	require.Equal(t, "The Styrmin process running this task stopped (crash, kill or restart). Rolled the release back to revision 1; upgrade again.", task.Message)
	steps, err := b.q.ListSteps(context.Background(), id)
	require.NoError(t, err)
	require.Equal(t, executor.StepFailed, steps[0].Status, "the step the process died in is failed, not running")
	require.Equal(t, executor.TaskSucceeded, executortest.WaitRow(t, b.q, next).Status, "the deployment is free for the next task")
}

func TestTaskOfADeadProcessResumesWhenItsRunnerSaysSo(t *testing.T) {
	t.Parallel()
	b := setup(t)
	runs := 0
	runner := runnerFunc{
		run: func(ctx context.Context, run *executor.Run) (any, error) {
			runs++
			return fmt.Sprint("run ", runs), nil
		},
		recover: func(ctx context.Context, run *executor.Run) (bool, string, error) {
			return true, "Scaling is safe to repeat: running it again.", nil
		},
	}
	id := b.crashedTask(t, b.deployment(t, "db"), "stop")
	b.start(t, map[string]executor.Runner{"stop": runner}, fast)

	task := executortest.WaitRow(t, b.q, id)
	require.Equal(t, executor.TaskSucceeded, task.Status)
	require.JSONEq(t, `"run 1"`, string(task.Result))
	steps, err := b.q.ListSteps(context.Background(), id)
	require.NoError(t, err)
	require.Len(t, steps, 2, "the step the process died in, then the recovery's")
	recovery := steps[1]
	require.Equal(t, executor.StepRecover, recovery.Kind)
	require.Equal(t, executor.StepWarning, recovery.Status)
	require.Equal(t, "The Styrmin process running this task stopped (crash, kill or restart). Scaling is safe to repeat: running it again.", recovery.Message,
		"the history says the task was interrupted although its new run succeeded")
}

func TestShutdownAfterTheDrainTimeRecoversTheRunningTask(t *testing.T) {
	t.Parallel()
	b := setup(t)
	running := make(chan struct{})
	runner := runnerFunc{
		run: func(ctx context.Context, run *executor.Run) (any, error) {
			close(running)
			<-ctx.Done()
			return nil, ctx.Err()
		},
		recover: func(ctx context.Context, run *executor.Run) (bool, string, error) {
			return false, "The release was rolled back.", nil
		},
	}
	e, w := b.worker(t, map[string]executor.Runner{"upgrade": runner}, fast)
	require.NoError(t, w.Start(context.Background()))
	id := b.enqueue(t, e, b.deployment(t, "db"), "upgrade", nil, nil)
	<-running
	ctx, cancel := context.WithTimeout(context.Background(), 200*time.Millisecond)
	defer cancel()
	require.NoError(t, w.Stop(ctx))

	task, err := b.q.GetTask(context.Background(), id)
	require.NoError(t, err)
	require.Equal(t, executor.TaskFailed, task.Status)
	require.Equal(t, "Styrmin was shut down while this task ran. The release was rolled back.", task.Message)
}

// The process's context ends first (a stop signal, as in app.runWorker),
// then Stop drains: the running task must not see the signal's cancel.
func TestShutdownWaitsForRunningTasksWithinTheDrainTime(t *testing.T) {
	t.Parallel()
	b := setup(t)
	running := make(chan struct{})
	runner := runnerFunc{run: func(ctx context.Context, run *executor.Run) (any, error) {
		close(running)
		time.Sleep(300 * time.Millisecond)
		return "done", ctx.Err()
	}}
	e, w := b.worker(t, map[string]executor.Runner{"upgrade": runner}, fast)
	processCtx, signal := context.WithCancel(context.Background())
	require.NoError(t, w.Start(processCtx))
	id := b.enqueue(t, e, b.deployment(t, "db"), "upgrade", nil, nil)
	<-running
	signal()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	require.NoError(t, w.Stop(ctx))

	task, err := b.q.GetTask(context.Background(), id)
	require.NoError(t, err)
	require.Equal(t, executor.TaskSucceeded, task.Status)
}

func TestARunningTaskCanBeCancelled(t *testing.T) {
	t.Parallel()
	b := setup(t)
	running := make(chan struct{})
	var runs atomic.Int32
	runner := runnerFunc{
		run: func(ctx context.Context, run *executor.Run) (any, error) {
			if runs.Add(1) > 1 {
				return nil, nil // the next task, once the deployment is free
			}
			return nil, run.Step(ctx, "hook", "Back up", func(ctx context.Context, s *executor.Step) error {
				close(running)
				<-ctx.Done()
				return errors.New("the action was cancelled")
			})
		},
		recover: func(ctx context.Context, run *executor.Run) (bool, string, error) {
			return true, "Nothing was upgraded.", nil
		},
	}
	e := b.start(t, map[string]executor.Runner{"upgrade": runner}, fast)
	dep := b.deployment(t, "db")
	id := b.enqueue(t, e, dep, "upgrade", nil, nil)
	next := b.enqueue(t, e, dep, "upgrade", nil, nil)
	<-running
	ctx := context.Background()
	require.ErrorIs(t, e.RequestCancel(ctx, next, "bob"), executor.ErrNotRunning, "a queued task is cancelled with CancelQueued")
	require.NoError(t, e.RequestCancel(ctx, id, "bob"))

	task := executortest.WaitRow(t, b.q, id)
	require.Equal(t, executor.TaskCanceled, task.Status, "cancelled, not run again although its runner could")
	require.Equal(t, "Cancelled by bob while it ran. Nothing was upgraded.", task.Message)
	steps, err := b.q.ListSteps(ctx, id)
	require.NoError(t, err)
	require.Equal(t, executor.StepFailed, steps[0].Status)
	require.Equal(t, executor.TaskSucceeded, executortest.WaitRow(t, b.q, next).Status, "the deployment is free for the next task")
}

func TestACancelledTaskRecoversEvenWhenItsRecoveryOutlastsAHeartbeat(t *testing.T) {
	t.Parallel()
	b := setup(t)
	running := make(chan struct{})
	runner := runnerFunc{
		run: func(ctx context.Context, run *executor.Run) (any, error) {
			close(running)
			<-ctx.Done()
			return nil, ctx.Err()
		},
		recover: func(ctx context.Context, run *executor.Run) (bool, string, error) {
			// Heartbeats go on meanwhile, and each sees the cancel request.
			select {
			case <-time.After(5 * fast.HeartbeatEvery):
				return false, "The upgrade was undone.", nil
			case <-ctx.Done():
				return false, "", context.Cause(ctx)
			}
		},
	}
	e := b.start(t, map[string]executor.Runner{"upgrade": runner}, fast)
	id := b.enqueue(t, e, b.deployment(t, "db"), "upgrade", nil, nil)
	<-running
	require.NoError(t, e.RequestCancel(context.Background(), id, "bob"))

	task := executortest.WaitRow(t, b.q, id)
	require.Equal(t, executor.TaskCanceled, task.Status)
	require.Equal(t, "Cancelled by bob while it ran. The upgrade was undone.", task.Message, "the request that cancelled the run does not cut its recovery short")
}

func TestTasksCommittedBackToBackStartWithoutWaitingForAPoll(t *testing.T) {
	t.Parallel()
	b := setup(t)
	started := make(chan int64, 1)
	runner := runnerFunc{run: func(ctx context.Context, run *executor.Run) (any, error) {
		started <- run.Task.ID
		return nil, nil
	}}
	// River polls once an hour: only notifications start tasks in this test.
	e := b.start(t, map[string]executor.Runner{"upgrade": runner}, executor.Options{PollEvery: time.Hour})
	deployments := []int64{b.deployment(t, "a"), b.deployment(t, "b")}
	for i := range 20 {
		// Each is committed as soon as the previous one starts, within River's
		// fetch cooldown of the previous notification.
		id := b.enqueue(t, e, deployments[i%2], "upgrade", nil, nil)
		select {
		case got := <-started:
			require.Equal(t, id, got)
		case <-time.After(30 * time.Second):
			t.Fatalf("task %d (number %d) did not start: its insert was not notified", id, i+1)
		}
	}
}

// TestAQueueHasAWorkerOnlyWhenBuiltToWork: a process that only queues tasks
// (serve --no-executor) cannot work them, and a queue has one worker.
func TestAQueueHasAWorkerOnlyWhenBuiltToWork(t *testing.T) {
	t.Parallel()
	b := setup(t)
	runners := map[string]executor.Runner{"upgrade": runnerFunc{run: succeed}}
	queueOnly, err := executor.New(b.pool, executor.Options{})
	require.NoError(t, err)
	_, err = executor.NewWorker(queueOnly, runners, nil)
	require.ErrorContains(t, err, "only queues tasks")

	e, _ := b.worker(t, runners, fast)
	_, err = executor.NewWorker(e, runners, nil)
	require.ErrorContains(t, err, "has its worker already")
}

// TestATaskQueuedWhileTheDeploymentIsReleasedStartsAtOnce commits a task in
// the moment its deployment's previous task is ending: after that task's
// last transaction looked for a queued task to hand the deployment over to,
// and before it committed. The new task's claim must not read the hold
// before that commit (it would find the deployment held and wait, and the
// hand-over could not see it): it waits for the deployment's row lock, and
// starts once the previous task's end has committed. A deferred trigger,
// blocked on an advisory lock the test holds, stops that transaction at its
// commit.
func TestATaskQueuedWhileTheDeploymentIsReleasedStartsAtOnce(t *testing.T) {
	t.Parallel()
	b := setup(t)
	ctx := context.Background()
	const lock = 4242
	_, err := b.pool.Exec(ctx, fmt.Sprintf(`
CREATE FUNCTION test_hold_release() RETURNS trigger LANGUAGE plpgsql AS
  $$ BEGIN PERFORM pg_advisory_xact_lock_shared(%d); RETURN NULL; END $$;
CREATE CONSTRAINT TRIGGER test_hold_release AFTER UPDATE ON deployments
  DEFERRABLE INITIALLY DEFERRED FOR EACH ROW
  WHEN (OLD.holder_task_id IS NOT NULL AND NEW.holder_task_id IS NULL)
  EXECUTE FUNCTION test_hold_release();`, lock))
	require.NoError(t, err)
	conn, err := b.pool.Acquire(ctx)
	require.NoError(t, err)
	defer conn.Release()
	_, err = conn.Exec(ctx, "SELECT pg_advisory_lock($1)", lock)
	require.NoError(t, err)

	started := make(chan int64, 2)
	runner := runnerFunc{run: func(ctx context.Context, run *executor.Run) (any, error) {
		started <- run.Task.ID
		return nil, nil
	}}
	// Neither a poll nor a retry starts the second task: only a hand-over can.
	e := b.start(t, map[string]executor.Runner{"upgrade": runner}, executor.Options{PollEvery: time.Hour, WaitRetry: time.Hour})
	dep := b.deployment(t, "db")
	first := b.enqueue(t, e, dep, "upgrade", nil, nil)
	require.Equal(t, first, <-started)
	// The first task's end waits at its commit, the deployment released but not yet for others.
	executortest.Wait(t, func(ctx context.Context) (int, error) {
		var waiting int
		err := b.pool.QueryRow(ctx, "SELECT count(*) FROM pg_locks WHERE locktype = 'advisory' AND objid = $1 AND NOT granted", lock).Scan(&waiting)
		return waiting, err
	}, func(waiting int) bool { return waiting > 0 })
	second := b.enqueue(t, e, dep, "upgrade", nil, nil)
	// Its claim waits for the ending transaction's lock on the deployment.
	executortest.Wait(t, func(ctx context.Context) (int, error) {
		var waiting int
		err := b.pool.QueryRow(ctx, "SELECT count(*) FROM pg_stat_activity WHERE datname = current_database() AND wait_event_type = 'Lock' AND query LIKE '%LockDeployment%'").Scan(&waiting)
		return waiting, err
	}, func(waiting int) bool { return waiting > 0 })
	require.Empty(t, started, "nothing runs while the deployment's release has not committed")
	_, err = conn.Exec(ctx, "SELECT pg_advisory_unlock($1)", lock)
	require.NoError(t, err)

	select {
	case got := <-started:
		require.Equal(t, second, got)
	case <-time.After(30 * time.Second): // a guard: the hand-over starts it at once
		t.Fatalf("task %d did not start: the end of task %d did not hand the deployment over", second, first)
	}
}
