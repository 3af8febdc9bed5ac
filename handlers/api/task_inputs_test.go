package api_test

import (
	"context"
	"net/http"
	"strconv"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/styrmin/styrmin/api"
	"github.com/styrmin/styrmin/deployment"
	"github.com/styrmin/styrmin/deployment/deploymenttest"
)

// inputsOf are a task's inputs as the API answered them, read by their
// discriminator (the task's kind), as T (api.InstallInputs, ...).
func inputsOf[T any](t *testing.T, task api.Task) T {
	t.Helper()
	v, err := task.Inputs.ValueByDiscriminator()
	require.NoError(t, err)
	in, ok := v.(T)
	require.True(t, ok, "task %d (%s) has inputs %T", task.Id, task.Kind, v)
	return in
}

// getTask reads a task through GET /tasks/{id}, its answer checked against
// the document.
func (d apiDeployApp) getTask(t *testing.T, id int64) api.Task {
	t.Helper()
	return decoded[api.Task](t, d.Call(t, d.readerToken, http.MethodGet, "/api/v1/tasks/"+strconv.FormatInt(id, 10), nil), http.StatusOK)
}

// TestAPITaskInputsAreTypedByKind: a task of each kind answers its inputs
// as its kind's schema of the document's TaskInputs, with every field, and
// the task list answers the same.
func TestAPITaskInputsAreTypedByKind(t *testing.T) {
	t.Parallel()
	d := setupAPIDeployments(t)
	ids := deploymenttest.EveryKind(t, d.Service, d.Pool, "site")

	install := inputsOf[api.InstallInputs](t, d.getTask(t, ids[deployment.KindInstall]))
	require.Equal(t, api.InstallInputsKind("install"), install.Kind)
	require.Equal(t, []string{"1.0.0", "1.27.0", "site"}, []string{install.DriverVersion, install.AppVersion, install.Namespace})
	require.Equal(t, float64(2), install.Parameters["replicas"])
	require.Equal(t, api.PromptValues{}, install.Prompts, "no hook prompts: an empty object")
	upgrade := inputsOf[api.UpgradeInputs](t, d.getTask(t, ids[deployment.KindUpgrade]))
	require.Equal(t, []string{"1.0.0", "1.0.0", "1.27.0", "1.27.0"}, []string{upgrade.FromDriverVersion, upgrade.DriverVersion, upgrade.FromAppVersion, upgrade.AppVersion})
	require.Equal(t, []string{"replicas"}, upgrade.Changed)
	require.Equal(t, float64(3), upgrade.Parameters["replicas"])
	require.Equal(t, api.RollbackInputs{Kind: "rollback", Revision: 1, DriverVersion: "1.0.0", AppVersion: "1.26.0"},
		inputsOf[api.RollbackInputs](t, d.getTask(t, ids[deployment.KindRollback])))
	require.Equal(t, api.StopInputs{Kind: "stop", Components: []string{"web"}}, inputsOf[api.StopInputs](t, d.getTask(t, ids[deployment.KindStop])))
	require.Equal(t, api.StartInputs{Kind: "start", Components: []string{}}, inputsOf[api.StartInputs](t, d.getTask(t, ids[deployment.KindStart])),
		"all components: an empty list, never null")
	require.Equal(t, api.DeleteInputs{Kind: "delete", Prompts: api.PromptValues{}}, inputsOf[api.DeleteInputs](t, d.getTask(t, ids[deployment.KindDelete])))
	require.Equal(t, api.ActionInputs{Kind: "action", Action: "fetch_page", Prompts: api.PlainValues{"path": "/index.html"}},
		inputsOf[api.ActionInputs](t, d.getTask(t, ids[deployment.KindAction])))

	page := decoded[api.TaskPage](t, d.Call(t, d.readerToken, http.MethodGet, "/api/v1/tasks?deployment=site", nil), http.StatusOK)
	require.Len(t, page.Items, len(deployment.TaskKinds())-1, "the linked upgrade is under its step")
	for _, task := range page.Items {
		kind, err := task.Inputs.Discriminator()
		require.NoError(t, err)
		require.Equal(t, string(task.Kind), kind, "inputs.kind repeats the task's kind")
		require.Equal(t, d.getTask(t, task.Id).Inputs, task.Inputs, "the list answers a task's inputs as GET /tasks/{id} does")
	}
}

// TestAPITaskInputsStoredInAnotherShape: a task whose stored inputs do not
// all read as its kind's still answers, in its kind's schema, the fields
// that read and inputs_unread saying what did not; a value under a key its
// kind does not have never comes back.
func TestAPITaskInputsStoredInAnotherShape(t *testing.T) {
	t.Parallel()
	d := setupAPIDeployments(t)
	d.Install(t, deploymenttest.HelloWeb("site"))
	dep, err := d.Service.Get(context.Background(), "site")
	require.NoError(t, err)

	rollback := d.getTask(t, deploymenttest.InsertTask(t, d.Pool, dep.ID, deployment.KindRollback, `{"revision": "three", "driver_version": "1.0.0"}`))
	require.Equal(t, api.RollbackInputs{Kind: "rollback", DriverVersion: "1.0.0"}, inputsOf[api.RollbackInputs](t, rollback))
	require.NotNil(t, rollback.InputsUnread)
	require.Equal(t, "The stored rollback inputs could not all be read: revision holds a JSON string.", *rollback.InputsUnread)

	id := deploymenttest.InsertTask(t, d.Pool, dep.ID, deployment.KindStop, `{"components": ["web"], "password": "hunter2-never-shown"}`)
	rec := d.Call(t, d.readerToken, http.MethodGet, "/api/v1/tasks/"+strconv.FormatInt(id, 10), nil)
	require.NotContains(t, rec.Body.String(), "hunter2-never-shown")
	stop := decoded[api.Task](t, rec, http.StatusOK)
	require.Equal(t, api.StopInputs{Kind: "stop", Components: []string{"web"}}, inputsOf[api.StopInputs](t, stop))
	require.Nil(t, stop.InputsUnread)
}
