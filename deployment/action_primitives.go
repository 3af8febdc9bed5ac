package deployment

import (
	"context"
	"crypto/sha256"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/jackc/pgx/v5"
	"k8s.io/utils/ptr"

	"github.com/styrmin/styrmin"
	"github.com/styrmin/styrmin/db"
	"github.com/styrmin/styrmin/kube"
)

// ActionTokenPrefix starts every action token, so that it is recognised (and
// redacted) wherever it surfaces.
const ActionTokenPrefix = "sta_"

// Caller is the action run behind an action token: the primitives act on
// its deployment only, and link what they start to its hook step.
type Caller struct {
	DeploymentID, TaskID, StepID int64
	// DeploymentName names the deployment, for the audit log.
	DeploymentName string
	// Action is the name of the action that runs.
	Action string
	// Deadline is when the action's own timeout ends; zero when unknown.
	Deadline time.Time
	// token is the action token itself, which the run's redactor hides.
	token string
}

// Authenticate returns the run of a live action token; an unknown, revoked
// or expired token is an EUNAUTHORIZED error.
func (s *Service) Authenticate(ctx context.Context, token string) (*Caller, error) {
	if !strings.HasPrefix(token, ActionTokenPrefix) {
		return nil, styrmin.Errorf(styrmin.EUNAUTHORIZED, "An action token is needed (Authorization: Bearer %s...).", ActionTokenPrefix)
	}
	sum := sha256.Sum256([]byte(token))
	row, err := s.q.GetActionToken(ctx, sum[:])
	if errors.Is(err, pgx.ErrNoRows) {
		return nil, styrmin.Errorf(styrmin.EUNAUTHORIZED, "This action token is unknown, or its run has ended.")
	}
	if err != nil {
		return nil, fmt.Errorf("deployment: action token: %w", err)
	}
	t := row.ActionToken
	return &Caller{DeploymentID: t.DeploymentID, TaskID: t.TaskID, StepID: t.StepID, DeploymentName: row.DeploymentName,
		Action: t.Action, Deadline: ptr.Deref(t.ActionDeadline, time.Time{}), token: token}, nil
}

// ActionDeployment is what an action reads of its deployment: no secret value.
type ActionDeployment struct {
	Name          string                 `json:"name"`
	Namespace     string                 `json:"namespace"`
	Release       string                 `json:"release"`
	Driver        string                 `json:"driver"`
	DriverVersion string                 `json:"driver_version"`
	AppVersion    string                 `json:"app_version"`
	Parameters    map[string]any         `json:"parameters"`
	Components    []ActionComponentState `json:"components"`
}

// ActionComponentState is a component as an action reads it.
type ActionComponentState struct {
	Name    string `json:"name"`
	Title   string `json:"title"`
	Stopped bool   `json:"stopped"`
}

// Deployment returns the caller's deployment.
func (c *Caller) deployment(ctx context.Context, s *Service) (db.Deployment, *Deployment, error) {
	row, err := s.q.GetDeploymentByID(ctx, c.DeploymentID)
	if err != nil {
		return db.Deployment{}, nil, fmt.Errorf("deployment: action's deployment: %w", err)
	}
	d, err := toDeployment(row)
	return row, d, err
}

// ReadDeployment is the deployment() primitive.
func (s *Service) ReadDeployment(ctx context.Context, c *Caller) (*ActionDeployment, error) {
	_, d, err := c.deployment(ctx, s)
	if err != nil {
		return nil, err
	}
	drv, err := s.driverSpec(ctx, d)
	if err != nil {
		return nil, err
	}
	out := &ActionDeployment{Name: d.Name, Namespace: d.Namespace, Release: d.Name, Driver: d.Driver,
		DriverVersion: d.DriverVersion, AppVersion: d.AppVersion, Parameters: d.Parameters}
	for _, comp := range drv.Spec.Components {
		out.Components = append(out.Components, ActionComponentState{Name: comp.Name, Title: ComponentTitle(comp), Stopped: d.Components[comp.Name].Stopped})
	}
	return out, nil
}

// rootKind is the kind of a task, "" when it cannot be read.
func (s *Service) rootKind(ctx context.Context, id int64) string {
	t, err := s.q.GetTask(ctx, id)
	if err != nil {
		return ""
	}
	return t.Kind
}

// LinkedTask returns a task the caller's hook step started.
func (s *Service) LinkedTask(ctx context.Context, c *Caller, id int64) (*Task, error) {
	row, err := s.q.GetTask(ctx, id)
	if errors.Is(err, pgx.ErrNoRows) || (err == nil && (row.ParentStepID == nil || *row.ParentStepID != c.StepID)) {
		return nil, styrmin.Errorf(styrmin.ENOTFOUND, "This action started no task %d.", id)
	}
	if err != nil {
		return nil, fmt.Errorf("deployment: linked task %d: %w", id, err)
	}
	t, err := toTask(row) // a linked task has no queue position
	return &t, err
}

// CommandsRequest is an execute_commands call.
type CommandsRequest struct {
	Commands []string          `json:"commands"`
	Image    string            `json:"image"`
	Env      map[string]string `json:"env"`
	// SecretEnv maps a variable to one of the deployment's secret
	// parameters, or to a secret prompt of the calling action as
	// "prompt.<name>" (SecretPromptPrefix).
	SecretEnv map[string]string `json:"secret_env"`
	// Timeout is in seconds.
	Timeout int `json:"timeout"`
}

// CommandsResult is how an execute_commands call ended.
type CommandsResult struct {
	Job        string `json:"job"`
	Succeeded  bool   `json:"succeeded"`
	DeletedJob string `json:"deleted_job"`
	Message    string `json:"message,omitempty"`
	TailLines  int    `json:"tail_lines,omitempty"`
	// Output is the end of a Job's output that succeeded, redacted and
	// bounded as a failed Job's tail: the action reads it, nothing stores it.
	Output string `json:"output,omitempty"`
}

// ExecuteCommands is the execute_commands primitive: it runs the commands in the
// deployment's action Job and records, on the caller's hook step, the Job it
// deleted (when it deletes it) and a failed Job's output tail, redacted as
// the step's own log is; a Job that succeeded answers with that tail instead. The secret values the Job reads (secret parameters,
// or the action's secret prompts named prompt.<name>) go into the Job's own
// Secret, created by kube.RunActionJob only once nothing refuses the call.
func (s *Service) ExecuteCommands(ctx context.Context, c *Caller, req CommandsRequest) (*CommandsResult, error) {
	cluster, err := s.NeedCluster()
	if err != nil {
		return nil, err
	}
	row, d, err := c.deployment(ctx, s)
	if err != nil {
		return nil, err
	}
	drv, err := s.driverSpec(ctx, d)
	if err != nil {
		return nil, err
	}
	task, err := s.q.GetTask(ctx, c.TaskID)
	if err != nil {
		return nil, fmt.Errorf("deployment: calling task: %w", err)
	}
	secrets, err := s.openRunSecrets(row, task, c.token)
	if err != nil {
		return nil, err
	}
	timeout, err := c.jobTimeout(req.Timeout)
	if err != nil {
		return nil, err
	}
	r := secrets.redactor()
	spec := kube.ActionJob{Namespace: d.Namespace, Release: d.Name, Commands: req.Commands, Image: req.Image,
		Env: req.Env, Timeout: timeout, Redactor: r,
		RecordDeleted: func(ctx context.Context, job string) error {
			if err := s.q.AddStepDeletedJob(ctx, db.AddStepDeletedJobParams{ID: c.StepID, Job: job}); err != nil {
				return fmt.Errorf("deployment: record the deleted Job: %w", err)
			}
			return nil
		}}
	if len(req.SecretEnv) > 0 {
		spec.SecretEnv = map[string]string{}
		for variable, ref := range req.SecretEnv {
			if spec.SecretEnv[variable], err = secrets.secretEnvValue(drv, task.Kind, c.Action, ref); err != nil {
				return nil, err
			}
		}
	}
	out, err := cluster.Kube.RunActionJob(ctx, spec)
	if !out.Succeeded && out.Message != "" { // failed, or stopped waiting for: its output so far, and how it ended
		detail := JobDetail{Job: out.Job, JobTail: out.Tail, JobTailLines: out.TailLines, JobMessage: r.String(out.Message)}
		if derr := s.mergeStepDetail(context.WithoutCancel(ctx), c.StepID, detail); derr != nil {
			return nil, errors.Join(derr, err)
		}
	}
	if err != nil {
		return nil, err
	}
	s.observer.JobRan(out.Succeeded)
	result := &CommandsResult{Job: out.Job, Succeeded: out.Succeeded, DeletedJob: out.DeletedJob, Message: r.String(out.Message), TailLines: out.TailLines}
	if out.Succeeded {
		result.Output, result.TailLines = out.Tail, 0
	}
	return result, nil
}

// jobTimeout is the time limit of the caller's Job that asked for seconds:
// never beyond the end of the action's own timeout, in whole seconds. When
// less than a second of it is left, the call is refused (EINVALID).
func (c *Caller) jobTimeout(seconds int) (time.Duration, error) {
	timeout := time.Duration(seconds) * time.Second
	if c.Deadline.IsZero() {
		return timeout, nil
	}
	left := time.Until(c.Deadline).Truncate(time.Second)
	if left < time.Second {
		return 0, styrmin.Errorf(styrmin.EINVALID, "The action's own timeout has run out: no Job can run for it any more.")
	}
	return min(timeout, left), nil
}

// mergeStepDetail adds the keys of a hook step's JobDetail to its detail
// (an action may run several Jobs: the last failed one's tail is kept).
func (s *Service) mergeStepDetail(ctx context.Context, stepID int64, add JobDetail) error {
	patch, err := json.Marshal(add)
	if err != nil {
		return fmt.Errorf("deployment: step detail: %w", err)
	}
	if err := s.q.MergeStepDetail(ctx, db.MergeStepDetailParams{ID: stepID, Patch: patch}); err != nil {
		return fmt.Errorf("deployment: step detail: %w", err)
	}
	return nil
}
