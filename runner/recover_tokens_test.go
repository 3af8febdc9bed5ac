package runner_test

import (
	"context"
	"crypto/sha256"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/styrmin/styrmin"
	"github.com/styrmin/styrmin/app/apptest"
	"github.com/styrmin/styrmin/db"
	"github.com/styrmin/styrmin/deployment"
	"github.com/styrmin/styrmin/executor"
)

// liveToken stores a live action token of a hook step of task, as mintToken does.
func liveToken(t *testing.T, env *apptest.Env, task db.Task, secret string) string {
	t.Helper()
	ctx := context.Background()
	q := db.New(env.Pool)
	st, err := q.InsertStep(ctx, db.InsertStepParams{TaskID: task.ID, Kind: deployment.StepHook, Title: "Run pre-upgrade action prepare"})
	require.NoError(t, err)
	token := deployment.ActionTokenPrefix + secret
	sum := sha256.Sum256([]byte(token))
	require.NoError(t, q.InsertActionToken(ctx, db.InsertActionTokenParams{
		TokenHash: sum[:], DeploymentID: task.DeploymentID, TaskID: task.ID, StepID: st.ID,
		ExpiresAt: time.Now().Add(time.Hour),
	}))
	_, err = env.Deployments.Authenticate(ctx, token)
	require.NoError(t, err, "the token is live while its run goes on")
	return token
}

// TestRecoveringATaskRevokesItsActionTokens: the process running a hook died,
// so the step's deferred revocation never ran; recovering the task revokes
// every token it minted, and only its tokens.
func TestRecoveringATaskRevokesItsActionTokens(t *testing.T) {
	t.Parallel()
	env := apptest.New(t, apptest.Options{})
	ctx := context.Background()
	q := db.New(env.Pool)
	install := func(name string) db.Task {
		queued, err := env.Deployments.Queue(ctx, &deployment.Install{Driver: "postgresql", DriverVersion: "1.2.0", Name: name,
			AppVersion: "16.4.0", Parameters: deployment.FormInput{"password": "s3cret-password"}, By: "alice"})
		require.NoError(t, err)
		task, err := q.GetTask(ctx, queued.TaskID)
		require.NoError(t, err)
		return task
	}
	deadTask, otherTask := install("orders"), install("billing")
	first := liveToken(t, env, deadTask, "first-run")
	second := liveToken(t, env, deadTask, "second-run")
	untouched := liveToken(t, env, otherTask, "other-task")

	// What the executor does with a task whose process died.
	runner := env.Runners.ByKind()[deadTask.Kind]
	resume, _, err := runner.Recover(ctx, &executor.Run{Task: deadTask})
	require.NoError(t, err)
	require.True(t, resume, "no Helm step had started, so the install runs again")

	for _, token := range []string{first, second} {
		_, err := env.Deployments.Authenticate(ctx, token)
		require.Equal(t, styrmin.EUNAUTHORIZED, styrmin.ErrorCode(err), "a token of the recovered task is revoked")
	}
	_, err = env.Deployments.Authenticate(ctx, untouched)
	require.NoError(t, err, "another task's token stays live")
}
