package deployment_test

import (
	"context"
	"crypto/sha256"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/styrmin/styrmin"
	"github.com/styrmin/styrmin/db"
	"github.com/styrmin/styrmin/deployment"
	"github.com/styrmin/styrmin/executor"
)

// liveToken stores a live action token of a hook step of task, as mintToken does.
func liveToken(t *testing.T, f fixture, task db.Task, secret string) string {
	t.Helper()
	ctx := context.Background()
	st, err := f.q.InsertStep(ctx, db.InsertStepParams{TaskID: task.ID, Kind: deployment.StepHook, Title: "Run pre-upgrade action prepare"})
	require.NoError(t, err)
	token := deployment.ActionTokenPrefix + secret
	sum := sha256.Sum256([]byte(token))
	require.NoError(t, f.q.InsertActionToken(ctx, db.InsertActionTokenParams{
		TokenHash: sum[:], DeploymentID: task.DeploymentID, TaskID: task.ID, StepID: st.ID,
		ExpiresAt: time.Now().Add(time.Hour),
	}))
	_, err = f.svc.Authenticate(ctx, token)
	require.NoError(t, err, "the token is live while its run goes on")
	return token
}

// TestRecoveringATaskRevokesItsActionTokens: the process running a hook died,
// so the step's deferred revocation never ran; recovering the task revokes
// every token it minted, and only its tokens.
func TestRecoveringATaskRevokesItsActionTokens(t *testing.T) {
	t.Parallel()
	f := setup(t, nil)
	ctx := context.Background()
	dead, err := f.svc.Queue(ctx, postgres("orders"))
	require.NoError(t, err)
	other, err := f.svc.Queue(ctx, postgres("billing"))
	require.NoError(t, err)
	deadTask, err := f.q.GetTask(ctx, dead.TaskID)
	require.NoError(t, err)
	otherTask, err := f.q.GetTask(ctx, other.TaskID)
	require.NoError(t, err)
	first := liveToken(t, f, deadTask, "first-run")
	second := liveToken(t, f, deadTask, "second-run")
	untouched := liveToken(t, f, otherTask, "other-task")

	// What the executor does with a task whose process died.
	runner := f.svc.Runners()[deadTask.Kind]
	resume, _, err := runner.Recover(ctx, &executor.Run{Task: deadTask})
	require.NoError(t, err)
	require.True(t, resume, "no Helm step had started, so the install runs again")

	for _, token := range []string{first, second} {
		_, err := f.svc.Authenticate(ctx, token)
		require.Equal(t, styrmin.EUNAUTHORIZED, styrmin.ErrorCode(err), "a token of the recovered task is revoked")
	}
	_, err = f.svc.Authenticate(ctx, untouched)
	require.NoError(t, err, "another task's token stays live")
}
