// Package executor runs tasks durably on PostgreSQL.
//
// A task is a row of the tasks table committed together with its River job
// (Enqueue). A worker process picks the job up, takes the task's deployment
// (one task chain per deployment at a time, in queue order), marks the task
// running and renews a heartbeat while the task's Runner works, recording
// steps as they happen. A task that a task's action starts (a nested, or
// linked, task) runs under its root's hold, on a queue of its depth, and ends
// with the action that started it (task_linked.go). When a process dies,
// another one sees the heartbeat stop and asks the Runner to recover: the
// task then either runs again from the start or ends failed with a message
// saying what happened. A run holds its task by a lease that every write of
// it checks (lease.go), so a task never runs twice at once.
//
// The hold invariant: whenever a task ends or leaves the running state (it
// finishes, is cancelled while queued, refused at its claim, or queued again
// by its recovery), the same transaction frees its deployment when nothing of
// its chain runs any more and hands a free deployment to its next task
// (settle). No deployment stays held by a chain that has ended.
//
// The executor knows nothing of Helm or Kubernetes: Runners do the work.
package executor

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"os"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"
	"github.com/riverqueue/river"
	"github.com/riverqueue/river/riverdriver/riverpgxv5"

	"github.com/styrmin/styrmin/db"
)

// Runner does the work of one kind of task.
type Runner interface {
	// Run does the task, recording its steps on run, and returns its result
	// (marshalled to JSON). An error fails the task; its message is shown to
	// users, so it should say what went wrong and what to do.
	Run(ctx context.Context, run *Run) (result any, err error)
	// Recover is called, on another process or after a restart, for a task
	// whose runner stopped (crash, kill, shutdown) while it ran. It makes the
	// deployment consistent again and says whether the task may run again
	// from the start (resume) or must end failed with message.
	Recover(ctx context.Context, run *Run) (resume bool, message string, err error)
}

// SecretsOf returns the secret values of a task (its deployment's secret
// parameters, its sealed inputs): everything the task's run records hides
// them (see Run.Conceal).
type SecretsOf func(ctx context.Context, task db.Task) ([]string, error)

// Options tunes the executor; zero values take the defaults.
type Options struct {
	// Workers is how many tasks of each depth of nesting this process runs
	// at once (default 10): top-level tasks, the tasks their actions start,
	// and the tasks those start (see MaxLinkDepth).
	Workers int
	// HeartbeatEvery is how often a running task's heartbeat is renewed (default 5 s).
	HeartbeatEvery time.Duration
	// StaleAfter is how old a heartbeat may get before the task's runner is
	// taken for dead (default 45 s).
	StaleAfter time.Duration
	// WaitRetry is how long a task that waits for its deployment sleeps
	// before it looks again, if nothing wakes it earlier (default 30 s).
	WaitRetry time.Duration
	// PollEvery is how often each queue looks for jobs whose notification
	// it missed (default 1 s, River's): every Enqueue notifies, so this is
	// the fallback for a notification lost while the listener reconnects.
	PollEvery time.Duration
	// RescueAfter is how long River waits before it hands out again a job
	// whose process vanished before the task started (default 5 min).
	RescueAfter time.Duration
	// Name identifies this process in tasks.runner (default host:pid).
	Name string
	// Logger receives the executor's own log lines.
	Logger *slog.Logger
	// Work builds the queue able to work its tasks in this process
	// (NewWorker); without it the process only queues them.
	Work bool
	// Events hears of every task that starts or ends, in the transaction
	// that records it (nil: nobody does).
	Events Events
	// Extra is River work this process also does when it works tasks
	// (webhook deliveries); nil: none.
	Extra JobWorkers
	// Observer hears of each task this process starts, ends and prunes
	// (metrics); nil hears nothing.
	Observer Observer
}

// Observer hears of the tasks a process runs, as they start and end, and
// of those its retention deletes.
type Observer interface {
	// TaskStarted is called when a task of kind starts running here.
	TaskStarted(kind string)
	// TaskEnded is called when this process records a task's end: outcome
	// is its final status (succeeded, failed, canceled), took its run time.
	TaskEnded(kind, outcome string, took time.Duration)
	// TasksPruned is called when the retention deleted n tasks (Prune).
	TasksPruned(n int64)
}

// withDefaults fills in the zero fields of o.
func (o Options) withDefaults() Options {
	if o.Workers <= 0 {
		o.Workers = 10
	}
	if o.HeartbeatEvery <= 0 {
		o.HeartbeatEvery = 5 * time.Second
	}
	if o.StaleAfter <= 0 {
		o.StaleAfter = 45 * time.Second
	}
	if o.WaitRetry <= 0 {
		o.WaitRetry = 30 * time.Second
	}
	if o.PollEvery <= 0 {
		o.PollEvery = river.FetchPollIntervalDefault
	}
	if o.RescueAfter <= 0 {
		o.RescueAfter = 5 * time.Minute
	}
	if o.Name == "" {
		host, _ := os.Hostname() // an empty host still leaves the pid
		o.Name = fmt.Sprintf("%s:%d", host, os.Getpid())
	}
	if o.Logger == nil {
		o.Logger = slog.Default()
	}
	return o
}

// dispatchCooldown is River's fetch cooldown: the least time between two
// fetches of a queue's producer (calls within it are gathered into one fetch
// at its end, none lost). River's client also sends at most one insert
// notification per queue per cooldown, which is why Enqueue sends its own.
const dispatchCooldown = 5 * time.Millisecond

// Executor is the queue of tasks: it commits them (Enqueue) and cancels
// them. A process that works tasks also builds its Worker on it.
type Executor struct {
	pool    *pgxpool.Pool
	queries *db.Queries
	river   *river.Client[pgx.Tx]
	// runners and secretsOf are the Worker's, bound once by NewWorker before it starts.
	runners   map[string]Runner
	secretsOf SecretsOf
	opts      Options
	log       *slog.Logger
	// running are the tasks this process runs or recovers right now.
	running tracked
}

// New returns the queue of tasks on pool. With opts.Work, its River client is
// built able to work tasks too, so that a process that queues and works them
// has one River client: River fixes a client's workers and queues when it is
// built, while the Runners need the service that needs this queue, so the
// client's one River worker hands each job to the runners that NewWorker
// binds later (River works nothing before the Worker starts it).
func New(pool *pgxpool.Pool, opts Options) (*Executor, error) {
	opts = opts.withDefaults()
	e := &Executor{pool: pool, queries: db.New(pool), opts: opts, log: opts.Logger}
	cfg := &river.Config{
		Logger:               opts.Logger,
		JobTimeout:           -1, // a task's own operations carry their time limits
		RescueStuckJobsAfter: opts.RescueAfter,
		// A task starts as soon as its insert is heard (LISTEN/NOTIFY, sent
		// by every Enqueue); River's poll (PollEvery) is the fallback.
		FetchCooldown:     dispatchCooldown,
		FetchPollInterval: opts.PollEvery,
	}
	if opts.Work {
		workers := river.NewWorkers()
		river.AddWorker(workers, &taskWorker{e: e})
		cfg.Workers = workers
		cfg.Queues = map[string]river.QueueConfig{}
		for depth := range MaxLinkDepth + 1 {
			cfg.Queues[queueOf(depth)] = river.QueueConfig{MaxWorkers: opts.Workers}
		}
		if opts.Extra != nil {
			opts.Extra.Register(workers)
			name, n := opts.Extra.Queue()
			cfg.Queues[name] = river.QueueConfig{MaxWorkers: n}
		}
	}
	client, err := river.NewClient(riverpgxv5.New(pool), cfg)
	if err != nil {
		return nil, fmt.Errorf("executor: %w", err)
	}
	e.river = client
	return e, nil
}

// Worker works the tasks of its queue with its Runners, and recovers, now
// and then, the tasks of runners that died.
type Worker struct {
	e *Executor
	// stopReaper ends the loop that recovers tasks of dead runners.
	stopReaper context.CancelFunc
	reaperDone chan struct{}
}

// NewWorker returns the worker of queue, running each task kind with its
// Runner (task kind → Runner) and hiding the secrets that secretsOf gives
// for each task in what its run records (nil: the common forms of secrets
// only). queue must have been built with Options.Work, and has one worker.
func NewWorker(queue *Executor, runners map[string]Runner, secretsOf SecretsOf) (*Worker, error) {
	switch {
	case !queue.opts.Work:
		return nil, errors.New("executor: this queue was built without Options.Work: it only queues tasks")
	case len(runners) == 0:
		return nil, errors.New("executor: a worker needs runners")
	case queue.runners != nil:
		return nil, errors.New("executor: this queue has its worker already")
	}
	queue.runners, queue.secretsOf = runners, secretsOf
	return &Worker{e: queue}, nil
}

// Start works queued tasks until Stop. It also recovers, now and then, the
// tasks of runners that died. The end of ctx does not stop the worker: River
// would cancel the running tasks at once (its Start context is their
// parent), leaving Stop nothing to drain.
func (w *Worker) Start(ctx context.Context) error {
	if err := w.e.river.Start(context.WithoutCancel(ctx)); err != nil {
		return fmt.Errorf("executor: start: %w", err)
	}
	reaperCtx, cancel := context.WithCancel(context.WithoutCancel(ctx))
	w.stopReaper, w.reaperDone = cancel, make(chan struct{})
	go w.e.reap(reaperCtx, w.reaperDone)
	return nil
}

// Stop lets running tasks finish until ctx ends (the drain time limit), then
// cancels them: their runners recover what they were doing and the tasks end
// failed with a message saying Styrmin stopped.
func (w *Worker) Stop(ctx context.Context) error {
	if w.stopReaper == nil {
		return nil
	}
	w.stopReaper()
	<-w.reaperDone
	e := w.e
	err := e.river.Stop(ctx)
	if errors.Is(err, context.DeadlineExceeded) || errors.Is(err, context.Canceled) {
		e.log.Warn("executor: drain time is up; cancelling running tasks")
		cancelCtx, cancel := context.WithTimeout(context.Background(), e.opts.StaleAfter)
		defer cancel()
		err = e.river.StopAndCancel(cancelCtx)
	}
	if err != nil {
		return fmt.Errorf("executor: stop: %w", err)
	}
	return nil
}
