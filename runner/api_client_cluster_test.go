package runner_test

import (
	"context"
	"encoding/json"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/styrmin/styrmin/auth"
	"github.com/styrmin/styrmin/deployment"
	"github.com/styrmin/styrmin/deployment/deploymenttest"
	"github.com/styrmin/styrmin/devcluster/kubetest"
	"github.com/styrmin/styrmin/executor"
	"github.com/styrmin/styrmin/redact"
)

// clientActions is one manual action that starts a task both ways: through a
// primitive (linked to its hook step) and through styrmin.Client with an API
// token it is given as a secret prompt (a separate entry).
const clientActions = `
- name: both-ways
  hook: manual
  function: "actions:both_ways"
  timeout: 3m
  prompts:
    - {name: api_token, type: secret, required: true}
`

const clientActionsPy = `
import logging
import os

import styrmin

log = logging.getLogger("test")


def both_ways(api_token):
    name = styrmin.deployment().name
    linked = styrmin.stop_components()
    client = styrmin.Client(os.environ["STYRMIN_API_URL"], api_token)
    separate = client.start(name)
    log.info("started task %s with token %s", separate.id, api_token)
    return {"linked": linked.id, "separate": separate.id}
`

// TestATaskAnActionStartsThroughTheAPIIsNotLinked shows the seed's rule side
// by side: the stop an action starts through a primitive is linked to its
// hook step and in the hook's result; the start it asks for through the REST
// API, with a user's API token, is a separate task of that user, queued
// behind the action's task, under no step and in no result.
func TestATaskAnActionStartsThroughTheAPIIsNotLinked(t *testing.T) {
	t.Parallel()
	f := deploymenttest.SetupCluster(t)
	ctx := context.Background()
	// The environment's server serves the primitives and the REST API alike.
	users, tokens := f.Env.Users, f.Env.APITokens
	scripter, err := users.Create(ctx, auth.NewUser{Username: "scripter", Password: "password-of-scripter", Role: auth.Operator})
	require.NoError(t, err)
	token, err := tokens.Create(ctx, auth.Credential{User: scripter}, "given to an action", nil)
	require.NoError(t, err)

	f.ImportCopy(t, "hello-web", "1.6.0", clientActions, clientActionsPy)
	name := kubetest.UniqueName("client")
	f.CleanUp(t, name)
	req := deploymenttest.HelloWeb(name)
	req.DriverVersion = "1.6.0"
	f.WaitTask(t, name, deploymenttest.Queued(t)(f.Svc.Queue(ctx, req)))

	action := f.WaitTask(t, name, deploymenttest.Queued(t)(f.Svc.Queue(ctx, &deployment.RunAction{Name: name, Action: "both-ways", Prompts: deployment.FormInput{"api_token": token.Secret}, By: "alice"})))
	step := deploymenttest.HookStep(t, action, "both-ways")
	require.NotContains(t, deploymenttest.LogText(step), token.Secret, "the API token, a secret prompt, is redacted")
	require.Contains(t, deploymenttest.LogText(step), "with token "+redact.Mark)
	require.Len(t, step.Tasks, 1, "only the primitive's task is listed under the step")
	require.Equal(t, deployment.KindStop, step.Tasks[0].Kind)
	var result struct {
		Linked []deployment.LinkedResult
	}
	require.NoError(t, json.Unmarshal(action.Result, &result))
	require.Len(t, result.Linked, 1, "only the primitive's task is in the hook's result")
	require.Equal(t, deployment.KindStop, result.Linked[0].Kind)

	var returned struct{ Linked, Separate int64 }
	require.NoError(t, json.Unmarshal(step.Hook.Result, &returned))
	require.Equal(t, step.Tasks[0].ID, returned.Linked)
	separate := f.WaitEnded(t, name, returned.Separate)
	require.Equal(t, executor.TaskSucceeded, separate.Status, "the API's task ran once the action's task let the deployment go: %s", separate.Message)
	require.Equal(t, deployment.KindStart, separate.Kind)
	require.Equal(t, "scripter", separate.By, "it is the token's user's task")
	require.True(t, separate.StartedAt.After(*action.EndedAt) || separate.StartedAt.Equal(*action.EndedAt), "it ran after the action's task, not inside it")

	history, _, err := f.Svc.Tasks(ctx, separate.DeploymentID, 0, 10)
	require.NoError(t, err)
	var topLevel []int64
	for _, task := range history {
		topLevel = append(topLevel, task.ID)
	}
	require.Contains(t, topLevel, separate.ID, "the API's task is an entry of the deployment's history")
	require.NotContains(t, topLevel, step.Tasks[0].ID, "the linked task is not: it is under its step")
}
