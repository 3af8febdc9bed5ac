package runner

import (
	"context"
	"crypto/rand"
	"crypto/sha256"
	"encoding/base64"
	"fmt"
	"time"

	"github.com/styrmin/styrmin/actions"
	"github.com/styrmin/styrmin/db"
	"github.com/styrmin/styrmin/deployment"
	"github.com/styrmin/styrmin/drivers"
	"github.com/styrmin/styrmin/executor"
)

// ActionsConfig is how the executor runs driver actions.
type ActionsConfig struct {
	// Runtime runs each action: actions.Process (as a child process, from
	// Python and SDK) or an *actions.Pod (a pod in the deployment's namespace).
	Runtime actions.Runtime
	// Python is the interpreter (actions.FindPython), for the process runtime.
	Python string
	// SDK is the folder holding the styrmin Python package, for the process runtime.
	SDK string
	// APIURL is the base URL at which actions call the action API back.
	APIURL string
}

// tokenGrace is how long an action token outlives its action's timeout at most.
const tokenGrace = 5 * time.Minute

// runHooks runs the actions of hook, in declaration order, as one hook step
// each. A blocking action's failure stops there and is returned; a
// best-effort one's is a warning on its step, whether the action itself
// failed or its runtime could not start it.
func (j *taskRun) runHooks(ctx context.Context, b *drivers.Bundle, hook drivers.Hook, prompts map[string]map[string]any) error {
	for i := range b.Driver.Spec.Actions {
		a := &b.Driver.Spec.Actions[i]
		if a.Hook != hook {
			continue
		}
		if err := j.runAction(ctx, b, a, prompts[a.Name]); err != nil {
			return err
		}
	}
	return nil
}

// runAction runs one action as a hook step.
func (j *taskRun) runAction(ctx context.Context, b *drivers.Bundle, a *drivers.Action, prompts map[string]any) error {
	title := a.Title
	if title == "" {
		title = a.Name
	}
	return j.run.Step(ctx, deployment.StepHook, fmt.Sprintf("%s (%s action %s)", title, a.Hook, a.Name), func(ctx context.Context, st *executor.Step) error {
		detail := &deployment.HookDetail{Action: a.Name, Mode: string(a.EffectiveMode())}
		st.SetDetail(detail)
		if j.s.actions == nil {
			return j.hookFailed(st, detail, a, "Styrmin cannot run driver actions here: it was started without an action runtime (the process runtime needs python3, the pod runtime a cluster; see its log).")
		}
		token, err := j.mintToken(ctx, st.ID, a)
		if err != nil {
			return err
		}
		defer j.revokeTokensWhenDone(ctx, st.ID)()
		j.run.Conceal(token) // the run hides the deployment's secrets and the task's already
		r := j.run.Redactor()
		seq := int32(0) // a runtime calls the sink with one line at a time
		out, err := j.s.actions.Runtime.Run(ctx, actions.Spec{
			Python: j.s.actions.Python, SDK: j.s.actions.SDK, Files: b.Files, Action: *a, Prompts: deployment.WithPromptDefaults(a, prompts),
			Env:    actions.Env{APIURL: j.s.actions.APIURL, Token: token, Deployment: j.row.Name, Namespace: j.row.Namespace, Release: j.row.Name, StepID: st.ID},
			Labels: j.owner.Labels(),
		}, func(l actions.Line) {
			seq++
			if err := j.s.q.InsertStepLog(context.WithoutCancel(ctx), db.InsertStepLogParams{StepID: st.ID, Seq: seq, Level: l.Level, Message: r.String(l.Message)}); err != nil {
				j.s.log.Warn("runner: record an action's log line", "step", st.ID, "error", err)
			}
		})
		if err != nil { // the run did not start (image missing, pod refused, ...): the action failed
			return j.hookFailed(st, detail, a, r.String(err.Error()))
		}
		j.s.observer.ActionRan(!out.Failed())
		if len(out.Result) > 0 {
			detail.Result = out.Result // redacted, as JSON, with the step's detail
		}
		if !out.Failed() {
			st.Say("Done.")
			return nil
		}
		return j.hookFailed(st, detail, a, r.String(out.ErrorLine(a.TimeoutDuration())))
	})
}

// hookFailed records an action's failure on its step and in its detail: a
// warning for a best-effort action (nil: the task goes on), else the step's
// error.
func (j *taskRun) hookFailed(st *executor.Step, detail *deployment.HookDetail, a *drivers.Action, line string) error {
	msg := fmt.Sprintf("Action %s failed: %s", a.Name, line)
	detail.Error = msg
	if a.EffectiveMode() == drivers.ModeBestEffort {
		st.Warn("The action is best-effort, so the task goes on.")
		return nil
	}
	return fmt.Errorf("%s", msg)
}

// revokeTokensWhenDone revokes the action tokens of hook step stepID as soon
// as ctx ends (the task is cancelled or taken over), while the action may
// still run until its runtime has stopped it, and at the latest when the
// function it returns is called, at the end of the run.
func (j *taskRun) revokeTokensWhenDone(ctx context.Context, stepID int64) (runEnded func()) {
	revoke := func() {
		if err := j.s.q.RevokeActionTokens(context.WithoutCancel(ctx), stepID); err != nil {
			j.s.log.Warn("runner: revoke an action's token; it expires anyway", "step", stepID, "error", err)
		}
	}
	stop := context.AfterFunc(ctx, revoke)
	return func() {
		if stop() { // ctx has not ended: the run did
			revoke()
		}
	}
}

// mintToken creates the action token of one run of action a on the hook
// step stepID, storing only its hash, with the action's name and the end of
// its timeout (counted from now, so never later than the action's).
func (j *taskRun) mintToken(ctx context.Context, stepID int64, a *drivers.Action) (string, error) {
	raw := make([]byte, 32)
	rand.Read(raw) // never fails
	token := deployment.ActionTokenPrefix + base64.RawURLEncoding.EncodeToString(raw)
	sum := sha256.Sum256([]byte(token))
	deadline := time.Now().Add(a.TimeoutDuration())
	err := j.s.q.InsertActionToken(ctx, db.InsertActionTokenParams{
		TokenHash: sum[:], DeploymentID: j.row.ID, TaskID: j.run.Task.ID, StepID: stepID,
		ExpiresAt: deadline.Add(tokenGrace), Action: a.Name, ActionDeadline: &deadline,
	})
	if err != nil {
		return "", fmt.Errorf("runner: action token: %w", err)
	}
	return token, nil
}

// linked lists the tasks the steps of this run started, for its result.
func (j *taskRun) linked(ctx context.Context) ([]deployment.LinkedResult, error) {
	steps, err := j.s.q.ListSteps(ctx, j.run.Task.ID)
	if err != nil {
		return nil, fmt.Errorf("runner: steps of task %d: %w", j.run.Task.ID, err)
	}
	ids := make([]int64, len(steps))
	for i, st := range steps {
		ids[i] = st.ID
	}
	rows, err := j.s.q.ListNestedTasks(ctx, ids)
	if err != nil {
		return nil, fmt.Errorf("runner: linked tasks of task %d: %w", j.run.Task.ID, err)
	}
	out := make([]deployment.LinkedResult, 0, len(rows))
	for _, r := range rows {
		out = append(out, deployment.LinkedResult{ID: r.ID, Kind: r.Kind, Status: r.Status, Result: r.Result})
	}
	return out, nil
}

// openTaskSecrets opens and splits the secret inputs of the job's task.
func (j *taskRun) openTaskSecrets() (deployment.TaskSecretInputs, error) {
	opened, err := j.s.box.OpenValues(j.run.Task.SecretInputs, deployment.TaskSecretsAt(j.run.Task.ID, j.row.ID))
	if err != nil {
		return deployment.TaskSecretInputs{}, fmt.Errorf("runner: task %d secret inputs: %w", j.run.Task.ID, err)
	}
	return deployment.SplitTaskSecrets(opened)
}
