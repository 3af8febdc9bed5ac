package deployment_test

import (
	"context"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/styrmin/styrmin/deployment"
	"github.com/styrmin/styrmin/deployment/deploymenttest"
)

// TestATaskOfEachKindReadsBackWithItsTypedInputs: the service decodes a
// task's stored inputs once, as its kind's type, whether the task is on a
// page of the history or read alone (a linked one too).
func TestATaskOfEachKindReadsBackWithItsTypedInputs(t *testing.T) {
	t.Parallel()
	f := deploymenttest.Setup(t, nil)
	ctx := context.Background()
	ids := deploymenttest.EveryKind(t, f.Svc, f.Pool, "site")
	read := func(kind string) *deployment.Task {
		task, err := f.Svc.TaskByID(ctx, ids[kind])
		require.NoError(t, err)
		require.Equal(t, kind, task.Kind)
		require.Empty(t, task.InputsUnread, kind)
		return &task.Task
	}

	install := deploymenttest.Inputs[*deployment.InstallInputs](t, read(deployment.KindInstall))
	require.Equal(t, []string{"1.0.0", "1.27.0", "site"}, []string{install.DriverVersion, install.AppVersion, install.Namespace})
	require.Equal(t, float64(2), install.Parameters["replicas"])
	require.Equal(t, "Shop", install.Parameters["site_title"])
	upgrade := deploymenttest.Inputs[*deployment.UpgradeInputs](t, read(deployment.KindUpgrade))
	require.Equal(t, []string{"1.0.0", "1.0.0", "1.27.0", "1.27.0"}, []string{upgrade.FromDriverVersion, upgrade.DriverVersion, upgrade.FromAppVersion, upgrade.AppVersion})
	require.Equal(t, []string{"replicas"}, upgrade.Changed)
	require.Equal(t, float64(3), upgrade.Parameters["replicas"])
	require.Equal(t, &deployment.RollbackInputs{Revision: 1, DriverVersion: "1.0.0", AppVersion: "1.26.0"}, read(deployment.KindRollback).Inputs)
	require.Equal(t, &deployment.ComponentsInputs{Components: []string{"web"}}, read(deployment.KindStop).Inputs)
	require.Equal(t, &deployment.ComponentsInputs{}, read(deployment.KindStart).Inputs, "no components: all of them")
	require.Equal(t, &deployment.DeleteInputs{}, read(deployment.KindDelete).Inputs)
	require.Equal(t, &deployment.ActionInputs{Action: "fetch_page", Prompts: map[string]any{"path": "/index.html"}}, read(deployment.KindAction).Inputs)

	d := deploymenttest.MustGet(t, f, "site")
	page, _, err := f.Svc.Tasks(ctx, d.ID, 0, deployment.DefaultTaskPage)
	require.NoError(t, err)
	require.Len(t, page, len(deployment.TaskKinds())-1, "the linked upgrade is under its step")
	for _, task := range page {
		require.Equal(t, read(task.Kind).Inputs, task.Inputs, "a page of the history reads them as a task alone does")
	}
}

// TestATaskStoredInAnotherShapeStillReads: inputs stored in a shape other
// than Styrmin writes now (an older version's, or a row written by hand)
// still read: missing keys are empty, unknown keys are left out (a value
// under one never shows), and values of another type are left empty with
// InputsUnread saying which.
func TestATaskStoredInAnotherShapeStillReads(t *testing.T) {
	t.Parallel()
	f := deploymenttest.Setup(t, nil)
	ctx := context.Background()
	_, err := f.Svc.Queue(ctx, deploymenttest.HelloWeb("site"))
	require.NoError(t, err)
	d := deploymenttest.MustGet(t, f, "site")

	for _, tt := range []struct {
		name, kind, stored string
		want               deployment.TaskInputs
		unread             string
	}{
		{"an upgrade from before from_* and changed", deployment.KindUpgrade, `{"driver_version": "1.1.0", "app_version": "1.27.0", "parameters": {"replicas": 2}}`,
			&deployment.UpgradeInputs{DriverVersion: "1.1.0", AppVersion: "1.27.0", Parameters: map[string]any{"replicas": float64(2)}}, ""},
		{"the column's default", deployment.KindDelete, `{}`, &deployment.DeleteInputs{}, ""},
		{"null", deployment.KindStart, `null`, &deployment.ComponentsInputs{}, ""},
		{"an unknown key", deployment.KindStop, `{"components": ["web"], "password": "hunter2-never-shown"}`,
			&deployment.ComponentsInputs{Components: []string{"web"}}, ""},
		{"a value of another type", deployment.KindRollback, `{"revision": "three", "driver_version": "1.0.0"}`,
			&deployment.RollbackInputs{DriverVersion: "1.0.0"}, "The stored rollback inputs could not all be read: revision holds a JSON string."},
		{"no object", deployment.KindAction, `["fetch_page"]`,
			&deployment.ActionInputs{}, "The stored action inputs could not all be read: the top level holds a JSON array."},
	} {
		id := deploymenttest.InsertTask(t, f.Pool, d.ID, tt.kind, tt.stored)
		task, err := f.Svc.Task(ctx, "site", id)
		require.NoError(t, err, tt.name)
		require.Equal(t, tt.want, task.Inputs, tt.name)
		require.Equal(t, tt.unread, task.InputsUnread, tt.name)
	}
}
