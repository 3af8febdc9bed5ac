package executor

import (
	"context"
	"encoding/json"
	"fmt"
	"sync"

	"github.com/jackc/pgx/v5"

	"github.com/styrmin/styrmin/db"
	"github.com/styrmin/styrmin/redact"
)

// StepStatus is a step's status, as stored in steps.status; the type is
// db's (the generated rows carry it), the executor names its values.
type StepStatus = db.StepStatus

// Step statuses.
const (
	StepRunning   StepStatus = "running"
	StepSucceeded StepStatus = "succeeded"
	StepFailed    StepStatus = "failed"
	StepWarning   StepStatus = "warning"
	StepCanceled  StepStatus = "canceled"
)

// TaskStatus is a task's status, as stored in tasks.status; the type is db's
// (the generated rows carry it), the executor names its values.
type TaskStatus = db.TaskStatus

// Task statuses.
const (
	TaskQueued    TaskStatus = "queued"
	TaskRunning   TaskStatus = "running"
	TaskSucceeded TaskStatus = "succeeded"
	TaskFailed    TaskStatus = "failed"
	TaskCanceled  TaskStatus = "canceled"
)

// StepKind says what a step does, as stored in steps.kind; pages and the
// API show a step according to its kind. The type is db's (the generated
// rows carry it); the packages whose runners record steps name their kinds.
type StepKind = db.StepKind

// StepRecover is the one step kind the executor records itself: a task whose
// run was interrupted (its process stopped) runs again after it.
const StepRecover StepKind = "recover"

// Run is one run of a task, given to its Runner: the task's row and the
// recorder of its steps, which hides the run's secrets in everything it
// records (step messages and details, the task's message and result).
type Run struct {
	// Task is the task's row as it was when the run started.
	Task db.Task
	e    *Executor

	mu       sync.Mutex
	secrets  []string
	redactor *redact.Redactor
	kept     any
}

// KeepResult records v as the task's result for when its run ends without
// one: cancelled, or recovered after its process stopped. A Runner's Recover
// keeps what the interrupted run had done (such as the tasks its actions
// started), as a failed run returns it.
func (r *Run) KeepResult(v any) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.kept = v
}

// resultOr is result, or the result kept when it is nil.
func (r *Run) resultOr(result any) any {
	if result != nil {
		return result
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.kept
}

// Conceal adds values that everything the run records from now on replaces
// with redact.Mark, such as a token the run minted. The values the worker's
// SecretsOf gave for the task are concealed from the start.
func (r *Run) Conceal(values ...string) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.secrets = append(r.secrets, values...)
	r.redactor = redact.New(r.secrets...)
}

// Redactor hides the run's secrets and the common forms of secrets.
func (r *Run) Redactor() *redact.Redactor {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.redactor
}

// recordable returns what the run records of a message and of a value
// marshalled to JSON (its detail or result): redacted.
func (r *Run) recordable(message string, v any) (string, []byte, error) {
	doc, err := json.Marshal(v)
	if err != nil {
		return "", nil, err
	}
	red := r.Redactor()
	doc, err = red.JSON(doc)
	return red.String(message), doc, err
}

// Step records one step of the run: it is saved as running, fn runs, and the
// step is saved again as succeeded, failed (fn's error is its message) or
// whatever fn set with Warn. The tasks the step started (its action's linked
// tasks) end with it: those still queued are cancelled, those running are
// stopped, and Step returns once they have ended. Step returns fn's error.
func (r *Run) Step(ctx context.Context, kind StepKind, title string, fn func(ctx context.Context, s *Step) error) error {
	var row db.Step
	err := r.Fenced(ctx, func(tx pgx.Tx) (err error) {
		row, err = r.e.queries.WithTx(tx).InsertStep(ctx, db.InsertStepParams{TaskID: r.Task.ID, Kind: kind, Title: r.Redactor().String(title)})
		return err
	})
	if err != nil {
		return fmt.Errorf("executor: record step %q: %w", title, err)
	}
	s := &Step{ID: row.ID}
	ferr := fn(ctx, s)
	status := StepSucceeded
	switch {
	case ferr != nil:
		status = StepFailed
		if s.message == "" {
			s.message = ferr.Error()
		}
	case s.warning:
		status = StepWarning
	}
	message, detail, err := r.recordable(s.message, s.detailOrEmpty())
	if err != nil {
		return fmt.Errorf("executor: record step %q: %w", title, err)
	}
	// A cancelled run still records how its step ended, however long the
	// database takes to answer: what the step did is never lost.
	err = r.Write(context.WithoutCancel(ctx), "record the end of a step", func(ctx context.Context, q *db.Queries) error {
		return q.EndStep(ctx, db.EndStepParams{ID: s.ID, Status: status, Message: message, Detail: detail})
	})
	if err != nil {
		return fmt.Errorf("executor: record step %q: %w", title, err)
	}
	// The step has ended, so no task it started can start any more (claim).
	r.e.endLinked(ctx, r.Task.ID, s.ID)
	return ferr
}

// Step is a step being recorded.
type Step struct {
	// ID is the step's row id (nested tasks link to it).
	ID      int64
	message string
	warning bool
	detail  any
}

// Say sets the step's message, shown beside it on the deployment page.
func (s *Step) Say(format string, args ...any) { s.message = fmt.Sprintf(format, args...) }

// Warn ends the step as a warning with the message: the task goes on.
func (s *Step) Warn(format string, args ...any) {
	s.warning = true
	s.Say(format, args...)
}

// SetDetail records the step's detail, shown by pages and the API according
// to the step's kind: v is marshalled to a JSON object when the step ends, so
// it may be a pointer that fn goes on filling. Its keys are merged over those
// recorded while the step ran.
func (s *Step) SetDetail(v any) { s.detail = v }

// detailOrEmpty is the step's detail to store: {} when none was set.
func (s *Step) detailOrEmpty() any {
	if s.detail == nil {
		return struct{}{}
	}
	return s.detail
}
