package deployment_test

import (
	"context"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/styrmin/styrmin/app/apptest"
	"github.com/styrmin/styrmin/deployment"
	"github.com/styrmin/styrmin/executor"
)

// greetActions and greetActionsPy are a best-effort post-install action and
// a manual one, each of which only prints a line.
const (
	greetActions = `
- {name: welcome, hook: post-install, mode: best-effort, function: "actions:greet", timeout: 2m}
- {name: greet, hook: manual, function: "actions:greet", timeout: 2m}
`
	greetActionsPy = `
def greet():
    print("hello")
`
)

// installGreeting installs deployment name of the Hello Web copy with the
// greet actions (imported beforehand as 1.5.0) and returns its task.
func installGreeting(t *testing.T, f clusterFixture, name string) *deployment.Task {
	t.Helper()
	req := helloWeb(name)
	req.DriverVersion = "1.5.0"
	req.Parameters = deployment.FormInput{"site_title": "Shop", "replicas": "1"}
	return f.waitTask(t, name, queued(t)(f.svc.Queue(context.Background(), req)))
}

// TestABestEffortActionWhosePodCannotStartIsAWarning: the action-runner
// image cannot be pulled, so the pod of a best-effort post-install action
// never starts. That is the action's failure, a warning on its step, as any
// other failure of a best-effort action: the install succeeds.
func TestABestEffortActionWhosePodCannotStartIsAWarning(t *testing.T) {
	t.Parallel()
	f := newClusterFixture(t, apptest.Options{Work: true, Actions: true, ActionImage: "styrmin.local/no-such-action-runner:1"})
	f.env.Start(t)
	f.importCopy(t, "hello-web", "1.5.0", greetActions, greetActionsPy)
	name := uniqueName("noimage")
	f.cleanUp(t, name)

	install := installGreeting(t, f, name)
	welcome := hookStep(t, install, "welcome")
	require.Equal(t, executor.StepWarning, welcome.Status)
	require.Contains(t, welcome.Hook.Error, "Action welcome failed: ")
	require.Contains(t, welcome.Hook.Error, "did not start")
	require.Equal(t, deployment.StatusDeployed, mustGet(t, f.fixture, name).Status)
}
