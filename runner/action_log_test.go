package runner_test

import (
	"context"
	"fmt"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/styrmin/styrmin/deployment"
	"github.com/styrmin/styrmin/deployment/deploymenttest"
	"github.com/styrmin/styrmin/executor"
)

// twoStreamsActions is one manual action that writes to standard output and
// standard error at once, past the runner (os.write).
const twoStreamsActions = `
- {name: both-streams, hook: manual, function: "actions:both_streams", timeout: 2m}
`

const twoStreamsActionsPy = `
import os
import threading


def both_streams():
    def err():
        for i in range(300):
            os.write(2, b"err %d\n" % i)
    t = threading.Thread(target=err)
    t.start()
    for i in range(300):
        os.write(1, b"out %d\n" % i)
    t.join()
`

// TestEveryLineOfBothStreamsIsInTheStepsLog runs an action writing to its
// standard output and standard error at the same time: each line is stored on
// its hook step, once.
func TestEveryLineOfBothStreamsIsInTheStepsLog(t *testing.T) {
	t.Parallel()
	f := setupDeadCluster(t)
	ctx := context.Background()
	f.ImportCopy(t, "hello-web", "1.5.0", twoStreamsActions, twoStreamsActionsPy)
	req := deploymenttest.HelloWeb("site")
	req.DriverVersion = "1.5.0"
	install := deploymenttest.Queued(t)(f.Svc.Queue(ctx, req))
	f.WaitEnded(t, "site", install.TaskID)

	task := f.WaitEnded(t, "site", deploymenttest.Queued(t)(f.Svc.Queue(ctx, &deployment.RunAction{Name: "site", Action: "both-streams", By: "alice"})).TaskID)
	require.Equal(t, executor.TaskSucceeded, task.Status, task.Message)
	seen := map[string]int{}
	for _, l := range deploymenttest.HookStep(t, task, "both-streams").Logs {
		seen[l.Message]++
	}
	for i := range 300 {
		for _, line := range []string{fmt.Sprintf("out %d", i), fmt.Sprintf("err %d", i)} {
			require.Equal(t, 1, seen[line], "%q is in the log once", line)
		}
	}
	require.Len(t, seen, 600)
}
