package executor

import (
	"context"
	"fmt"
	"slices"

	"github.com/riverqueue/river/riverdriver"
)

// RiverJobs counts River's jobs, as River's own driver reads them from its
// table: tasks are jobs of kind "styrmin_task" in the queues of each depth
// of nesting ("default", "linked_1", "linked_2"), and Options.Extra's work
// (webhook deliveries) has its own queue and kind.
type RiverJobs struct {
	// ByState counts every job by River's state (available, scheduled,
	// running, retryable, completed, cancelled, discarded, pending); every
	// state is present, 0 when no job is in it.
	ByState map[string]int
	// Queues are the jobs of each of this executor's queues that are
	// available (waiting for a worker) and running, by queue name.
	Queues []RiverQueue
}

// RiverQueue is one River queue's available and running jobs.
type RiverQueue struct {
	Name               string
	Available, Running int64
}

// RiverJobs reads the counts of River's jobs.
func (e *Executor) RiverJobs(ctx context.Context) (RiverJobs, error) {
	exec := e.river.Driver().GetExecutor()
	states, err := exec.JobCountByAllStates(ctx, &riverdriver.JobCountByAllStatesParams{})
	if err != nil {
		return RiverJobs{}, fmt.Errorf("executor: count River's jobs by state: %w", err)
	}
	queues, err := exec.JobCountByQueueAndState(ctx, &riverdriver.JobCountByQueueAndStateParams{QueueNames: e.queueNames()})
	if err != nil {
		return RiverJobs{}, fmt.Errorf("executor: count River's jobs by queue: %w", err)
	}
	jobs := RiverJobs{ByState: make(map[string]int, len(states))}
	for state, n := range states {
		jobs.ByState[string(state)] = n
	}
	for _, q := range queues {
		jobs.Queues = append(jobs.Queues, RiverQueue{Name: q.Queue, Available: q.CountAvailable, Running: q.CountRunning})
	}
	return jobs, nil
}

// queueNames are the River queues this executor's tasks and extra work go
// to, whether or not this process works them.
func (e *Executor) queueNames() []string {
	names := make([]string, 0, MaxLinkDepth+2)
	for depth := range MaxLinkDepth + 1 {
		names = append(names, queueOf(depth))
	}
	if e.opts.Extra != nil {
		name, _ := e.opts.Extra.Queue()
		names = append(names, name)
	}
	slices.Sort(names)
	return names
}
