package cli

import (
	"bytes"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/styrmin/styrmin/api/client"
)

// TestFollowingReportsEachChangeOnce: a task read again and again prints
// each status, each step's status and (for logs) each log line once.
func TestFollowingReportsEachChangeOnce(t *testing.T) {
	t.Parallel()
	at := time.Date(2026, 12, 5, 15, 0, 0, 0, time.UTC)
	line := func(msg string) client.LogLine { return client.LogLine{At: at, Level: "INFO", Message: msg} }
	hook := client.Step{Id: 9, Position: 1, Title: "pre-upgrade backup", Status: "running", Logs: []client.LogLine{line("dumping")}}
	task := client.Task{Id: 4, Kind: client.Upgrade, Deployment: "web", Status: client.TaskStatusRunning, Steps: []client.Step{hook}}

	var logs, steps bytes.Buffer
	withLogs, withoutLogs := progress{steps: map[int64]string{}, lines: map[int64]int{}}, progress{steps: map[int64]string{}, lines: map[int64]int{}}
	report := func() {
		withLogs.report(&logs, &task, true)
		withoutLogs.report(&steps, &task, false)
	}
	report()
	report()
	task.Steps[0].Logs = append(task.Steps[0].Logs, line("uploaded"))
	report()
	failed := "backup bucket unreachable"
	task.Steps[0].Status, task.Steps[0].Error = "failed", &failed
	task.Status, task.Ended = client.TaskStatusFailed, true
	report()

	require.Equal(t, "Task 4 (upgrade of web) running\n"+
		"  step 1 pre-upgrade backup: running\n"+
		"    15:00:00 INFO dumping\n"+
		"    15:00:00 INFO uploaded\n"+
		"  step 1 pre-upgrade backup: failed\n"+
		"    error: backup bucket unreachable\n", logs.String())
	require.Equal(t, "Task 4 (upgrade of web) running\n"+
		"  step 1 pre-upgrade backup: running\n"+
		"  step 1 pre-upgrade backup: failed\n"+
		"    error: backup bucket unreachable\n", steps.String())
}
