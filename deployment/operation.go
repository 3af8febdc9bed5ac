package deployment

import (
	"context"
	"fmt"

	"github.com/jackc/pgx/v5"

	"github.com/styrmin/styrmin"
	"github.com/styrmin/styrmin/audit"
	"github.com/styrmin/styrmin/db"
	"github.com/styrmin/styrmin/executor"
	"github.com/styrmin/styrmin/requests"
)

// Operation is one change of a deployment as a value: *Install, *Upgrade,
// ConfirmUpgrade, *Rollback, *Stop, *Start, *Delete, *RunAction, *Reconcile, or a
// Linked one that an action starts. Every operation takes one path:
// Service.Queue checks its inputs against the deployment and driver as they
// are (validate), works out its task (plan) and queues that task in one
// transaction. An upgrade is reviewed first: Service.Review plans it once
// and dry-runs it, and ConfirmUpgrade queues the plan its review carries.
//
// Bad inputs are an *InvalidError naming each field; other refusals are a
// styrmin.Error with their code (ENOTFOUND, ECONFLICT, EINVALID).
type Operation interface {
	// plan checks the operation's inputs and works out its task.
	plan(ctx context.Context, s *Service) (plan, error)
}

// plan is a checked operation whose task is ready to be queued.
type plan interface {
	// queue writes the task, and what it needs, inside tx and queues it.
	queue(ctx context.Context, s *Service, tx pgx.Tx) (*Queued, error)
	// what names the change in errors ("upgrade cache").
	what() string
}

// Queue checks and plans op and queues its task in one transaction, with
// the request's audit entry (audit.Within).
func (s *Service) Queue(ctx context.Context, op Operation) (*Queued, error) {
	var queued *Queued
	var audited func()
	err := pgx.BeginFunc(ctx, s.pool, func(tx pgx.Tx) error {
		var err error
		queued, audited, err = s.QueueIn(ctx, tx, op)
		return err
	})
	if err != nil {
		return nil, err
	}
	audited()
	return queued, nil
}

// QueueIn is Queue inside tx, for a caller whose own change commits with
// the task (a schedule's run): it checks and plans op, queues its task in tx
// and writes the audit entry of ctx there. Call audited once tx commits.
func (s *Service) QueueIn(ctx context.Context, tx pgx.Tx, op Operation) (queued *Queued, audited func(), err error) {
	p, err := op.plan(ctx, s)
	if err != nil {
		return nil, nil, err
	}
	if queued, err = p.queue(ctx, s, tx); err == nil {
		audited, err = audit.Within(ctx, tx, queued.Deployment, queued.TaskID)
	}
	if err != nil {
		return nil, nil, fmt.Errorf("deployment: %s: %w", p.what(), err)
	}
	return queued, audited, nil
}

// taskPlan is a checked change of an existing deployment: the task to queue.
type taskPlan struct {
	row  db.Deployment
	kind string
	// inputs are the task's inputs; secrets its secret inputs, sealed.
	inputs  any
	secrets map[string]string
	by      string
	// link is set when an action started the change (Linked).
	link *link
	// countsRequests is set for an upgrade: what its pods request
	// (requests; nil: not counted) is checked against the team's CPU and
	// memory quotas under the team's lock, and recorded.
	countsRequests bool
	requests       *requests.Totals
}

// link ties a task to the hook step that started it and to its chain's root.
type link struct{ step, root int64 }

// queue inserts and queues the task.
func (p *taskPlan) queue(ctx context.Context, s *Service, tx pgx.Tx) (*Queued, error) {
	if p.countsRequests {
		if err := p.lockRequests(ctx, s.q.WithTx(tx)); err != nil {
			return nil, err
		}
	}
	var step, root *int64
	if p.link != nil {
		step, root = &p.link.step, &p.link.root
	}
	task, err := s.insertTask(ctx, tx, p.row.ID, p.kind, p.inputs, p.secrets, p.by, step, root)
	if err != nil {
		return nil, err
	}
	return &Queued{TaskID: task.ID, Deployment: p.row.Name}, nil
}

// lockRequests checks what the change requests against the team's CPU and
// memory quotas under the team's lock, and records it (lockedRequests). A
// change whose requests were not counted is refused when the team has such
// a quota (set since it was planned).
func (p *taskPlan) lockRequests(ctx context.Context, q *db.Queries) error {
	team, err := q.LockTeam(ctx, p.row.TeamID)
	if err != nil {
		return fmt.Errorf("deployment: lock the team: %w", err)
	}
	if p.requests == nil && hasQuota(team) {
		var errs fieldErrors
		errs.add(Field{Kind: FieldParameters}, fmt.Sprintf("the team %s has a CPU or memory quota, and what this %s requests was not counted; review it again", team.Name, p.kind))
		return errs.err()
	}
	return lockedRequests(ctx, q, team, p.row.ID, p.requests, recorded(p.row))
}

// what names the change.
func (p *taskPlan) what() string {
	if p.link != nil {
		return fmt.Sprintf("linked %s of %s", p.kind, p.row.Name)
	}
	return p.kind + " " + p.row.Name
}

// LinkedOperation is an operation an action may start on its own
// deployment: *Stop, *Start or *Upgrade.
type LinkedOperation interface {
	Operation
	// planOn plans the operation on the deployment row (dep: as read from
	// it), asked by by.
	planOn(ctx context.Context, s *Service, row db.Deployment, dep *Deployment, by string) (*taskPlan, error)
}

// Linked is an operation that an action starts on its own deployment
// through a primitive (stop_components, start_components,
// upgrade_deployment_version). Op's own Name and By are not used: it acts
// on the caller's deployment, asked by "action (task <id>)". Its task is
// linked to the caller's hook step: it runs although the caller's task holds
// the deployment, and its result joins the caller's task result. An upgrade
// started from an upgrade of the same deployment is refused (ECONFLICT): it
// would wait on itself.
type Linked struct {
	Caller *Caller
	Op     LinkedOperation
}

// plan plans Op on the caller's deployment, linked to its hook step.
func (l Linked) plan(ctx context.Context, s *Service) (plan, error) {
	row, dep, err := l.Caller.deployment(ctx, s)
	if err != nil {
		return nil, err
	}
	caller, err := s.q.GetTask(ctx, l.Caller.TaskID)
	if err != nil {
		return nil, fmt.Errorf("deployment: calling task: %w", err)
	}
	root := executor.RootOf(caller)
	if _, isUpgrade := l.Op.(*Upgrade); isUpgrade && (caller.Kind == KindUpgrade || s.rootKind(ctx, root) == KindUpgrade) {
		return nil, styrmin.Errorf(styrmin.ECONFLICT, "An action of an upgrade of %s cannot start another upgrade of it: the new upgrade would wait for the one running it.", row.Name)
	}
	p, err := l.Op.planOn(ctx, s, row, dep, fmt.Sprintf("action (task %d)", caller.ID))
	if err != nil {
		return nil, err
	}
	p.link = &link{step: l.Caller.StepID, root: root}
	return p, nil
}
