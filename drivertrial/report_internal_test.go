package drivertrial

import (
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/styrmin/styrmin/deployment"
	"github.com/styrmin/styrmin/executor"
)

// hookStep is a step of action that ended with status, its action's error
// errText and logs log lines.
func hookStep(action string, status executor.StepStatus, message, errText string, logs int) deployment.Step {
	st := deployment.Step{Kind: deployment.StepHook, Title: "Run " + action, Status: status, Message: message,
		Hook: &deployment.HookDetail{Action: action, Error: errText}}
	for i := range logs {
		st.Logs = append(st.Logs, deployment.LogLine{Level: "INFO", Message: fmt.Sprintf("line %d", i+1)})
	}
	return st
}

func TestFailureIsTheFirstFailedActionBestEffortOnesIncluded(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name string
		task deployment.Task
		want string
	}{
		{"succeeded", deployment.Task{Status: executor.TaskSucceeded, Steps: []deployment.Step{hookStep("check", executor.StepSucceeded, "Done.", "", 0)}}, ""},
		{"best-effort action failed", deployment.Task{Status: executor.TaskSucceeded, Steps: []deployment.Step{
			hookStep("check", executor.StepWarning, "The action is best-effort, so the task goes on.", "Action check failed: boom", 0),
		}}, "Action check failed: boom (a best-effort action: a deployment goes on, the trial does not)"},
		{"action failed", deployment.Task{Status: executor.TaskFailed, Message: "Action check failed: boom", Steps: []deployment.Step{
			hookStep("check", executor.StepFailed, "Action check failed: boom", "Action check failed: boom", 0),
		}}, "Action check failed: boom"},
		{"other step failed", deployment.Task{Status: executor.TaskFailed, Message: "Helm install failed: quota"}, "Helm install failed: quota"},
		{"canceled without message", deployment.Task{Status: executor.TaskCanceled}, "canceled"},
	} {
		require.Equal(t, tc.want, failure(&tc.task), tc.name)
	}
}

func TestTheReportShowsAFailedActionsErrorOnceAndItsLastLogLines(t *testing.T) {
	t.Parallel()
	start := time.Date(2026, 12, 6, 4, 0, 0, 0, time.UTC)
	end := start.Add(1250 * time.Millisecond)
	task := &deployment.Task{Kind: deployment.KindAction, Status: executor.TaskFailed, StartedAt: &start, EndedAt: &end,
		Message: "Action check failed: boom", Steps: []deployment.Step{
			hookStep("check", executor.StepFailed, "Action check failed: boom", "Action check failed: boom", 12),
			hookStep("other", executor.StepWarning, "The action is best-effort, so the task goes on.", "Action other failed: bang", 0),
		}}
	var b strings.Builder
	report(&b, "action check", task)
	require.Equal(t, `action check (action task): failed in 1.2s: Action check failed: boom
  Run check: failed: Action check failed: boom
    last 10 log lines:
      INFO line 3
      INFO line 4
      INFO line 5
      INFO line 6
      INFO line 7
      INFO line 8
      INFO line 9
      INFO line 10
      INFO line 11
      INFO line 12
  Run other: warning: The action is best-effort, so the task goes on.
    error: Action other failed: bang
`, b.String())
}
