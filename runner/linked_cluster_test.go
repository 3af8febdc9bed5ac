package runner_test

import (
	"context"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/styrmin/styrmin/deployment"
	"github.com/styrmin/styrmin/deployment/deploymenttest"
	"github.com/styrmin/styrmin/devcluster/kubetest"
	"github.com/styrmin/styrmin/executor"
)

// linkedActions are the actions of the Hello Web copy the linked-task test
// deploys: a manual action that times out while the upgrade it started
// still runs that upgrade's slow pre-upgrade action. The manual action's
// timeout must hold python3's start and two primitive calls on a loaded
// machine (5 s did not, at load average 20), and stay far below the slow
// action's 300 s.
const linkedActions = `
- name: slow
  hook: pre-upgrade
  function: "actions:slow"
  timeout: 5m
  prompts:
    - {name: seconds, type: integer, default: 0}
- {name: hurry, hook: manual, function: "actions:hurry", timeout: 30s}
`

const linkedActionsPy = `
import time

import styrmin


def slow(seconds):
    print("sleeping", seconds)
    time.sleep(seconds)


def hurry():
    d = styrmin.deployment()
    styrmin.upgrade_deployment_version(d.app_version, prompts={"slow": {"seconds": 300}})
`

// TestActionTimedOutWhileItsLinkedUpgradeRunsOnTheLocalCluster runs a manual
// action whose upgrade_deployment_version call outlasts the action's timeout:
// the linked upgrade is stopped before the action's task ends, and the
// upgrade queued behind the action runs after it, never beside it.
func TestActionTimedOutWhileItsLinkedUpgradeRunsOnTheLocalCluster(t *testing.T) {
	t.Parallel()
	f := deploymenttest.SetupCluster(t)
	ctx := context.Background()
	f.ImportCopy(t, "hello-web", "1.5.0", linkedActions, linkedActionsPy)
	name := kubetest.UniqueName("linked")
	f.CleanUp(t, name)
	req := deploymenttest.HelloWeb(name)
	req.DriverVersion = "1.5.0"
	f.WaitTask(t, name, deploymenttest.Queued(t)(f.Svc.Queue(ctx, req)))

	run := deploymenttest.Queued(t)(f.Svc.Queue(ctx, &deployment.RunAction{Name: name, Action: "hurry", By: "alice"}))
	review, err := f.Svc.Review(ctx, &deployment.Upgrade{Name: name, Parameters: deployment.FormInput{"replicas": "3"}, By: "bob"})
	require.NoError(t, err)
	next := deploymenttest.Queued(t)(f.Svc.Queue(ctx, deployment.ConfirmUpgrade{Token: review.Token, By: "bob"}))

	action := f.WaitEnded(t, name, run.TaskID)
	require.Equal(t, executor.TaskFailed, action.Status, action.Message)
	hurry := deploymenttest.HookStep(t, action, "hurry")
	require.Len(t, hurry.Tasks, 1, "the linked upgrade is listed under the step; the action ended: %s", hurry.Message)
	linked := hurry.Tasks[0]
	require.Equal(t, deployment.KindUpgrade, linked.Kind)
	require.Equal(t, executor.TaskCanceled, linked.Status, linked.Message)
	require.NotNil(t, linked.EndedAt)
	require.False(t, linked.EndedAt.After(*action.EndedAt), "the linked upgrade ended before the action's task")

	upgrade := f.WaitTask(t, name, next)
	require.False(t, upgrade.StartedAt.Before(*linked.EndedAt), "the next upgrade never ran beside the linked one")
	require.Equal(t, 3, int(deploymenttest.MustGet(t, f.Fixture, name).Parameters["replicas"].(float64)))
}
