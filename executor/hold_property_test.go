package executor_test

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"os"
	"slices"
	"strconv"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/stretchr/testify/require"

	"github.com/styrmin/styrmin/db"
	"github.com/styrmin/styrmin/db/dbtest"
	"github.com/styrmin/styrmin/executor"
)

// The property test drives random sequences of what happens to tasks (queue,
// claim, link, finish, cancel, kill, recover, database outage) over a few
// deployments, and checks after each step that no deployment is held by a
// chain that has ended; at the end, every queued task is claimed in turn
// until none is left.
//
// make test runs a short sequence of a fixed seed; make test-engine runs
// sequences of random seeds for STYRMIN_ENGINE_PROPERTY_TIME (a duration).
// A failure names its seed: STYRMIN_ENGINE_PROPERTY_SEED=N runs it again.

// propertyOptions make a dead run stale quickly; nothing here waits for a retry.
var propertyOptions = executor.Options{HeartbeatEvery: time.Hour, StaleAfter: 200 * time.Millisecond, WaitRetry: time.Hour}

func TestTheHoldInvariantHoldsWhateverHappensToTasks(t *testing.T) {
	t.Parallel()
	s := dbtest.NewStoppable(t)
	setupOn(t, s.Pool)
	seed, budget := propertySeed(t), propertyTime(t)
	deadline := time.Now().Add(budget)
	for first := true; first || time.Now().Before(deadline); first = false {
		t.Logf("seed %d", seed)
		m := newEngineModel(t, s, seed)
		for range 120 {
			m.step()
			m.checkHold()
		}
		m.drain()
		seed++
	}
}

// propertySeed is STYRMIN_ENGINE_PROPERTY_SEED, else 1, or a random seed
// when the test runs for a time.
func propertySeed(t *testing.T) uint64 {
	if v := os.Getenv("STYRMIN_ENGINE_PROPERTY_SEED"); v != "" {
		seed, err := strconv.ParseUint(v, 10, 64)
		require.NoError(t, err, "STYRMIN_ENGINE_PROPERTY_SEED")
		return seed
	}
	if os.Getenv("STYRMIN_ENGINE_PROPERTY_TIME") != "" {
		return rand.Uint64()
	}
	return 1
}

// propertyTime is STYRMIN_ENGINE_PROPERTY_TIME: 0 runs one sequence.
func propertyTime(t *testing.T) time.Duration {
	v := os.Getenv("STYRMIN_ENGINE_PROPERTY_TIME")
	if v == "" {
		return 0
	}
	d, err := time.ParseDuration(v)
	require.NoError(t, err, "STYRMIN_ENGINE_PROPERTY_TIME")
	return d
}

// engineModel is one sequence: a queue whose worker is not started, whose
// claims, ends and recoveries the sequence makes happen, and the runs it
// keeps alive (a dead run is one whose heartbeat stopped).
type engineModel struct {
	t     *testing.T
	s     *dbtest.Stoppable
	b     bundle
	e     *executor.Executor
	rnd   *rand.Rand
	seed  uint64
	deps  []int64
	alive map[int64]*executor.Run
	ops   []string // what happened, for a failure's message
}

func newEngineModel(t *testing.T, s *dbtest.Stoppable, seed uint64) *engineModel {
	b := bundle{pool: s.Pool, q: db.New(s.Pool)}
	m := &engineModel{t: t, s: s, b: b, rnd: rand.New(rand.NewPCG(seed, seed)), seed: seed, alive: map[int64]*executor.Run{}}
	recoverAtRandom := func(ctx context.Context, run *executor.Run) (bool, string, error) {
		return m.rnd.IntN(2) == 0, "Recovered.", nil
	}
	runners := map[string]executor.Runner{}
	for _, kind := range []string{"upgrade", "action", "stop"} {
		runners[kind] = runnerFunc{run: succeed, recover: recoverAtRandom}
	}
	m.e, _ = b.worker(t, runners, propertyOptions)
	for i := range 3 {
		m.deps = append(m.deps, b.deployment(t, fmt.Sprintf("d%d-%d", seed, i)))
	}
	return m
}

// step makes one random thing happen.
func (m *engineModel) step() {
	ctx := context.Background()
	switch n := m.rnd.IntN(100); {
	case n < 20:
		dep := m.deps[m.rnd.IntN(len(m.deps))]
		m.note("queue %d", m.b.enqueue(m.t, m.e, dep, "upgrade", nil, nil))
	case n < 45:
		if id, ok := m.pick(executor.TaskQueued); ok {
			run, err := m.e.ClaimNow(ctx, id)
			m.must(err)
			if run != nil {
				m.alive[id] = run
			}
			m.note("claim %d (started: %t)", id, run != nil)
		}
	case n < 55:
		if run := m.anyAlive(); run != nil {
			m.link(run)
		}
	case n < 70:
		if run := m.anyAlive(); run != nil {
			status := []executor.TaskStatus{executor.TaskSucceeded, executor.TaskFailed}[m.rnd.IntN(2)]
			m.e.Finish(ctx, run, status)
			delete(m.alive, run.Task.ID)
			m.note("finish %d %s", run.Task.ID, status)
		}
	case n < 76:
		if id, ok := m.pick(executor.TaskQueued); ok {
			err := m.e.CancelQueued(ctx, id, "Cancelled before it started.")
			if !errors.Is(err, executor.ErrNotQueued) {
				m.must(err)
			}
			m.note("cancel queued %d", id)
		}
	case n < 80:
		if run := m.anyAlive(); run != nil {
			m.must(m.e.RequestCancel(ctx, run.Task.ID, "alice"))
			m.e.RecoverCancelled(ctx, run)
			delete(m.alive, run.Task.ID)
			m.note("cancel running %d", run.Task.ID)
		}
	case n < 88:
		if run := m.anyAlive(); run != nil {
			m.kill(run)
		}
	case n < 97:
		m.recoverDead()
	default:
		m.outage()
	}
}

// link has a step of run start a task, as an action's primitive does.
func (m *engineModel) link(run *executor.Run) {
	ctx := context.Background()
	var step int64
	m.must(m.b.pool.QueryRow(ctx, `INSERT INTO steps (task_id, position, kind, title)
		VALUES ($1, (SELECT coalesce(max(position), 0) + 1 FROM steps WHERE task_id = $1), 'hook', 'an action') RETURNING id`,
		run.Task.ID).Scan(&step))
	root := executor.RootOf(run.Task)
	var id int64
	// As the primitive does: the task and its job commit together, or neither.
	err := pgx.BeginFunc(ctx, m.b.pool, func(tx pgx.Tx) error {
		task, err := m.b.q.WithTx(tx).InsertTask(ctx, db.InsertTaskParams{DeploymentID: run.Task.DeploymentID, Kind: "stop",
			Inputs: []byte("{}"), ParentStepID: &step, RootTaskID: &root, CreatedBy: "test"})
		if err != nil {
			return err
		}
		id = task.ID
		return m.e.Enqueue(ctx, tx, task.ID)
	})
	if errors.Is(err, executor.ErrTooDeep) {
		return
	}
	m.must(err)
	m.note("link %d under %d", id, run.Task.ID)
}

// kill stops run's heartbeat for good, as when its process dies.
func (m *engineModel) kill(run *executor.Run) {
	_, err := m.b.pool.Exec(context.Background(), `UPDATE tasks SET heartbeat_at = now() - interval '1 hour' WHERE id = $1`, run.Task.ID)
	m.must(err)
	delete(m.alive, run.Task.ID)
	m.note("kill %d", run.Task.ID)
}

// recoverDead renews the heartbeats of the runs alive, as their processes
// do, and has the dead runs' tasks recovered.
func (m *engineModel) recoverDead() {
	ctx := context.Background()
	m.beat()
	time.Sleep(propertyOptions.StaleAfter)
	m.beat()
	m.must(m.e.RecoverStaleTasks(ctx))
	m.note("recover")
}

// beat renews the heartbeat of every run alive; a run whose task was taken
// over is alive no more.
func (m *engineModel) beat() {
	for id, run := range m.alive {
		held, err := m.e.Beat(context.Background(), run)
		m.must(err)
		if !held {
			delete(m.alive, id)
		}
	}
}

// outage stops the database while a run ends, and starts it again: the end
// is recorded once the database is back.
func (m *engineModel) outage() {
	run := m.anyAlive()
	m.s.Stop(m.t)
	done := make(chan struct{})
	if run != nil {
		go func() {
			defer close(done)
			m.e.Finish(context.Background(), run, executor.TaskSucceeded)
		}()
		delete(m.alive, run.Task.ID)
	} else {
		close(done)
	}
	time.Sleep(300 * time.Millisecond)
	m.s.Start(m.t)
	<-done
	m.s.Pool.Reset() // the test's own reads do not meet the connections the outage broke
	m.note("outage while %v ended", run != nil)
}

// drain ends every run alive and claims every queued task until none is
// left: every queued task is claimed in the end.
func (m *engineModel) drain() {
	ctx := context.Background()
	for round := 0; ; round++ {
		for _, run := range m.alive {
			m.e.Finish(ctx, run, executor.TaskSucceeded)
			delete(m.alive, run.Task.ID)
		}
		m.recoverDead()
		queued := m.ids(executor.TaskQueued)
		running := m.ids(executor.TaskRunning)
		if len(queued) == 0 && len(running) == 0 {
			break
		}
		require.Less(m.t, round, 50, "seed %d: tasks still queued %v or running %v after %d rounds; %v", m.seed, queued, running, round, m.ops)
		for _, id := range queued {
			run, err := m.e.ClaimNow(ctx, id)
			m.must(err)
			if run != nil {
				m.alive[id] = run
			}
		}
		m.checkHold()
	}
	var held []int64
	m.must(m.b.pool.QueryRow(ctx, `SELECT coalesce(array_agg(id), '{}') FROM deployments WHERE holder_task_id IS NOT NULL`).Scan(&held))
	require.Empty(m.t, held, "seed %d: deployments still held once every task ended; %v", m.seed, m.ops)
}

// checkHold fails the test when a deployment is held by a chain whose root
// has ended and none of whose tasks runs.
func (m *engineModel) checkHold() {
	var stuck []int64
	m.must(m.b.pool.QueryRow(context.Background(), `
SELECT coalesce(array_agg(d.id), '{}') FROM deployments d
WHERE d.holder_task_id IS NOT NULL AND NOT EXISTS (
  SELECT 1 FROM tasks t WHERE t.root_task_id = d.holder_task_id
    AND (t.status = 'running' OR (t.id = d.holder_task_id AND t.status = 'queued')))`).Scan(&stuck))
	require.Empty(m.t, stuck, "seed %d: deployments held by an ended chain after %v", m.seed, m.ops)
}

// pick is a random task of status of the model's deployments.
func (m *engineModel) pick(status executor.TaskStatus) (int64, bool) {
	ids := m.ids(status)
	if len(ids) == 0 {
		return 0, false
	}
	return ids[m.rnd.IntN(len(ids))], true
}

// ids are the tasks of status of the model's deployments, in id order.
func (m *engineModel) ids(status executor.TaskStatus) []int64 {
	var ids []int64
	m.must(m.b.pool.QueryRow(context.Background(),
		`SELECT coalesce(array_agg(id ORDER BY id), '{}') FROM tasks WHERE status = $1 AND deployment_id = ANY($2)`,
		status, m.deps).Scan(&ids))
	return ids
}

// anyAlive is a random run alive, nil when none is.
func (m *engineModel) anyAlive() *executor.Run {
	if len(m.alive) == 0 {
		return nil
	}
	ids := make([]int64, 0, len(m.alive))
	for id := range m.alive {
		ids = append(ids, id)
	}
	slices.Sort(ids)
	return m.alive[ids[m.rnd.IntN(len(ids))]]
}

func (m *engineModel) note(format string, args ...any) {
	m.ops = append(m.ops, fmt.Sprintf(format, args...))
}

func (m *engineModel) must(err error) {
	m.t.Helper()
	require.NoError(m.t, err, "seed %d after %v", m.seed, m.ops)
}
