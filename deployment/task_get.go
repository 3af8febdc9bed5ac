package deployment

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/styrmin/styrmin"
	"github.com/styrmin/styrmin/db"
	"github.com/styrmin/styrmin/executor"
)

// Task is one change of a deployment with its steps, as pages and the API
// show it. Its inputs never hold a secret value.
type Task struct {
	ID, DeploymentID int64
	// ParentStepID is the hook step that started this task through a
	// primitive (a linked task); nil for a top-level task.
	ParentStepID *int64
	Kind         string
	Status       executor.TaskStatus
	// Message says how the task ended, or why it waits.
	Message string
	// Inputs are what the task was asked to do, of its kind's type (never
	// nil after a read).
	Inputs TaskInputs
	// InputsUnread says what of the stored inputs did not read as the
	// kind's (readTaskInputs); empty when they all did.
	InputsUnread string
	Result       json.RawMessage
	By           string
	// QueuePosition is, for a queued task, how many tasks wait before it.
	QueuePosition      int
	CreatedAt          time.Time
	StartedAt, EndedAt *time.Time
	Steps              []Step
	// StepCount is how many steps the task has, also when its steps were
	// left out (TasksWithSteps).
	StepCount int
	// Summary is what its steps add up to, also when they were left out
	// (TaskFilter.SummaryOnly); zero when only StepCount was read.
	Summary StepSummary
}

// StepSummary is what a task's steps add up to, for a list that shows the
// task's outcome but not its steps.
type StepSummary struct {
	// Warnings is how many steps ended with a warning.
	Warnings int
	// FailedStep is the title of the first step that failed, "" when none
	// did; FailedReason is its hook's error, or else its message.
	FailedStep, FailedReason string
}

// summarize sums up the steps of a task, as ListStepSummaries does.
func summarize(steps []Step) StepSummary {
	var sum StepSummary
	for _, st := range steps {
		switch {
		case st.Status == executor.StepWarning:
			sum.Warnings++
		case st.Status == executor.StepFailed && sum.FailedStep == "":
			sum.FailedStep, sum.FailedReason = st.Title, st.Message
			if st.Hook != nil && st.Hook.Error != "" {
				sum.FailedReason = st.Hook.Error
			}
		}
	}
	return sum
}

// Ended reports whether the task is over (succeeded, failed or canceled).
func (t *Task) Ended() bool { return t.EndedAt != nil }

// RefusedPermissions is what the failed task's chart creates that no admin
// approved for its driver version; nil for any other task.
func (t *Task) RefusedPermissions() *RefusedPermissions {
	if t.Status != executor.TaskFailed || len(t.Result) == 0 {
		return nil
	}
	var res FailedResult
	if json.Unmarshal(t.Result, &res) != nil || res.Refused == nil || res.Refused.Items.Empty() {
		return nil
	}
	return res.Refused
}

// Step is one recorded step of a task.
type Step struct {
	ID       int64
	Position int
	Kind     executor.StepKind
	Title    string
	Status   executor.StepStatus
	Message  string
	// Detail is the step's detail as stored, the keys of its kind's detail
	// type (step_detail.go).
	Detail map[string]any
	// Hook is the detail of a StepHook, nil for the other kinds.
	Hook      *HookDetail
	StartedAt time.Time
	EndedAt   *time.Time
	// Tasks are the tasks this step started (nested tasks).
	Tasks []Task
	// Logs are a hook step's log lines, redacted.
	Logs []LogLine
}

// readDetail reads the step's stored detail, and its kind's type if it has
// one that is read back.
func (s *Step) readDetail(stored []byte) error {
	if err := json.Unmarshal(stored, &s.Detail); err != nil {
		return err
	}
	if s.Kind != StepHook {
		return nil
	}
	s.Hook = &HookDetail{}
	return json.Unmarshal(stored, s.Hook)
}

// LogLine is one log line of an action.
type LogLine struct {
	Level, Message string
	At             time.Time
}

// DefaultTaskPage is how many tasks a page of the task history holds.
const DefaultTaskPage = 20

// Tasks returns a page of a deployment's tasks, newest first, with their
// steps and nested tasks: before is the id of the last task of the previous
// page (0 for the first). next is the id to ask for the next page, 0 at the end.
func (s *Service) Tasks(ctx context.Context, deploymentID, before int64, pageSize int) (tasks []Task, next int64, err error) {
	return s.TasksWithSteps(ctx, deploymentID, before, pageSize, nil)
}

// TasksWithSteps is Tasks with the steps (and nested tasks) of only the
// tasks that withSteps picks, by their place on the page (0 is the newest)
// and the task as read so far; the others have their StepCount only. A nil
// withSteps picks every task.
func (s *Service) TasksWithSteps(ctx context.Context, deploymentID, before int64, pageSize int, withSteps func(i int, t *Task) bool) (tasks []Task, next int64, err error) {
	if pageSize <= 0 {
		pageSize = DefaultTaskPage
	}
	rows, err := s.q.ListTasks(ctx, db.ListTasksParams{DeploymentID: deploymentID, BeforeID: db.PageBefore(before), PageSize: int32(pageSize + 1)})
	if err != nil {
		return nil, 0, fmt.Errorf("deployment: tasks of %d: %w", deploymentID, err)
	}
	if len(rows) > pageSize {
		rows = rows[:pageSize]
		next = rows[pageSize-1].Task.ID
	}
	tasks = make([]Task, len(rows))
	var picked []*Task
	for i, r := range rows {
		if tasks[i], err = toTask(r.Task); err != nil {
			return nil, 0, err
		}
		tasks[i].StepCount = int(r.StepCount)
		if withSteps == nil || withSteps(i, &tasks[i]) {
			picked = append(picked, &tasks[i])
		}
	}
	if err := s.attachQueuePositions(ctx, tasks); err != nil {
		return nil, 0, err
	}
	if err := s.attachSteps(ctx, picked); err != nil {
		return nil, 0, err
	}
	return tasks, next, nil
}

// Task returns one task of the named deployment with its steps. A task of
// another deployment, or none, is an ENOTFOUND error.
func (s *Service) Task(ctx context.Context, deployment string, id int64) (*Task, error) {
	d, err := s.Get(ctx, deployment)
	if err != nil {
		return nil, err
	}
	row, err := s.q.GetTask(ctx, id)
	if errors.Is(err, pgx.ErrNoRows) || (err == nil && row.DeploymentID != d.ID) {
		return nil, styrmin.Errorf(styrmin.ENOTFOUND, "Deployment %s has no task %d.", deployment, id)
	}
	if err != nil {
		return nil, fmt.Errorf("deployment: task %d: %w", id, err)
	}
	tasks, err := s.withSteps(ctx, []db.Task{row})
	if err != nil {
		return nil, err
	}
	return &tasks[0], nil
}

// withSteps converts task rows and attaches their queue positions and
// steps (attachSteps).
func (s *Service) withSteps(ctx context.Context, rows []db.Task) ([]Task, error) {
	tasks, err := s.queuedTasks(ctx, rows)
	if err != nil {
		return nil, err
	}
	picked := make([]*Task, len(tasks))
	for i := range tasks {
		picked[i] = &tasks[i]
	}
	if err := s.attachSteps(ctx, picked); err != nil {
		return nil, err
	}
	return tasks, nil
}

// withSummaries converts task rows and attaches their queue positions and
// their steps' summaries (attachSummaries).
func (s *Service) withSummaries(ctx context.Context, rows []db.Task) ([]Task, error) {
	tasks, err := s.queuedTasks(ctx, rows)
	if err != nil {
		return nil, err
	}
	if err := s.attachSummaries(ctx, tasks); err != nil {
		return nil, err
	}
	return tasks, nil
}

// queuedTasks converts task rows and attaches their queue positions.
func (s *Service) queuedTasks(ctx context.Context, rows []db.Task) ([]Task, error) {
	tasks := make([]Task, len(rows))
	for i, r := range rows {
		t, err := toTask(r)
		if err != nil {
			return nil, err
		}
		tasks[i] = t
	}
	if err := s.attachQueuePositions(ctx, tasks); err != nil {
		return nil, err
	}
	return tasks, nil
}

// attachSteps attaches to tasks their steps and, under each step, its log
// lines and the tasks it started, level by level: one query for the steps,
// and the log lines and nested tasks only of the steps that have some
// (hook steps).
func (s *Service) attachSteps(ctx context.Context, tasks []*Task) error {
	if len(tasks) == 0 {
		return nil
	}
	ids := make([]int64, len(tasks))
	index := make(map[int64]*Task, len(tasks))
	for i, t := range tasks {
		t.Steps, t.StepCount = nil, 0
		ids[i], index[t.ID] = t.ID, t
	}
	steps, err := s.q.ListStepsOfTasks(ctx, ids)
	if err != nil {
		return fmt.Errorf("deployment: steps: %w", err)
	}
	var withLogs, withTasks []int64
	for _, row := range steps {
		st := row.Step
		step := Step{ID: st.ID, Position: int(st.Position), Kind: st.Kind, Title: st.Title, Status: st.Status,
			Message: st.Message, StartedAt: st.StartedAt, EndedAt: st.EndedAt}
		if err := step.readDetail(st.Detail); err != nil {
			return fmt.Errorf("deployment: step %d detail: %w", st.ID, err)
		}
		t := index[st.TaskID]
		t.Steps = append(t.Steps, step)
		t.StepCount++
		if row.HasLogs {
			withLogs = append(withLogs, st.ID)
		}
		if row.HasTasks {
			withTasks = append(withTasks, st.ID)
		}
	}
	for _, t := range tasks {
		t.Summary = summarize(t.Steps)
	}
	return s.attachLogsAndTasks(ctx, tasks, withLogs, withTasks)
}

// attachSummaries gives tasks their StepCount and Summary, in one query for
// them all, without reading their steps.
func (s *Service) attachSummaries(ctx context.Context, tasks []Task) error {
	ids := make([]int64, len(tasks))
	for i, t := range tasks {
		ids[i] = t.ID
	}
	rows, err := s.q.ListStepSummaries(ctx, ids)
	if err != nil {
		return fmt.Errorf("deployment: step summaries: %w", err)
	}
	summary := make(map[int64]db.ListStepSummariesRow, len(rows))
	for _, r := range rows {
		summary[r.TaskID] = r
	}
	for i := range tasks {
		r := summary[tasks[i].ID]
		tasks[i].StepCount = int(r.StepCount)
		tasks[i].Summary = StepSummary{Warnings: int(r.Warnings), FailedStep: r.FailedStep, FailedReason: r.FailedReason}
	}
	return nil
}

// attachLogsAndTasks attaches to the steps of tasks the log lines of the
// steps withLogs and the tasks that the steps withTasks started.
func (s *Service) attachLogsAndTasks(ctx context.Context, tasks []*Task, withLogs, withTasks []int64) error {
	if len(withLogs) == 0 && len(withTasks) == 0 {
		return nil
	}
	stepIndex := map[int64]*Step{}
	for _, t := range tasks {
		for j := range t.Steps {
			stepIndex[t.Steps[j].ID] = &t.Steps[j]
		}
	}
	if len(withLogs) > 0 {
		logs, err := s.q.ListStepLogs(ctx, withLogs)
		if err != nil {
			return fmt.Errorf("deployment: step logs: %w", err)
		}
		for _, l := range logs {
			st := stepIndex[l.StepID]
			st.Logs = append(st.Logs, LogLine{Level: l.Level, Message: l.Message, At: l.LoggedAt})
		}
	}
	if len(withTasks) == 0 {
		return nil
	}
	nestedRows, err := s.q.ListNestedTasks(ctx, withTasks)
	if err != nil {
		return fmt.Errorf("deployment: nested tasks: %w", err)
	}
	nested, err := s.withSteps(ctx, nestedRows)
	if err != nil {
		return err
	}
	for k, r := range nestedRows {
		st := stepIndex[*r.ParentStepID]
		st.Tasks = append(st.Tasks, nested[k])
	}
	return nil
}

// toTask converts a task row, its inputs read as its kind's.
func toTask(r db.Task) (Task, error) {
	t := Task{ID: r.ID, DeploymentID: r.DeploymentID, ParentStepID: r.ParentStepID, Kind: r.Kind, Status: r.Status, Message: r.Message,
		Result: r.Result, By: r.CreatedBy, CreatedAt: r.CreatedAt, StartedAt: r.StartedAt, EndedAt: r.EndedAt}
	var err error
	if t.Inputs, t.InputsUnread, err = readTaskInputs(r.Kind, r.Inputs); err != nil {
		return Task{}, fmt.Errorf("deployment: task %d: %w", r.ID, err)
	}
	return t, nil
}

// attachQueuePositions gives the queued top-level tasks among tasks their
// queue position, in one query for them all (none when none waits).
func (s *Service) attachQueuePositions(ctx context.Context, tasks []Task) error {
	var queued []int64
	for _, t := range tasks {
		if t.Status == executor.TaskQueued && t.ParentStepID == nil {
			queued = append(queued, t.ID)
		}
	}
	if len(queued) == 0 {
		return nil
	}
	rows, err := s.q.QueuePositions(ctx, queued)
	if err != nil {
		return fmt.Errorf("deployment: queue positions: %w", err)
	}
	position := make(map[int64]int, len(rows))
	for _, r := range rows {
		position[r.TaskID] = int(r.Position)
	}
	for i := range tasks {
		tasks[i].QueuePosition = position[tasks[i].ID]
	}
	return nil
}
