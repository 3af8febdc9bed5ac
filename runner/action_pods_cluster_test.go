package runner_test

import (
	"context"
	"testing"

	"github.com/stretchr/testify/require"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/styrmin/styrmin/actions"
	"github.com/styrmin/styrmin/app/apptest"
	"github.com/styrmin/styrmin/deployment"
	"github.com/styrmin/styrmin/deployment/deploymenttest"
	"github.com/styrmin/styrmin/devcluster/kubetest"
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
func installGreeting(t *testing.T, f deploymenttest.ClusterFixture, name string) *deployment.Task {
	t.Helper()
	req := deploymenttest.HelloWeb(name)
	req.DriverVersion = "1.5.0"
	req.Parameters = deployment.FormInput{"site_title": "Shop", "replicas": "1"}
	return f.WaitTask(t, name, deploymenttest.Queued(t)(f.Svc.Queue(context.Background(), req)))
}

// TestABestEffortActionWhosePodCannotStartIsAWarning: the action-runner
// image cannot be pulled, so the pod of a best-effort post-install action
// never starts. That is the action's failure, a warning on its step, as any
// other failure of a best-effort action: the install succeeds.
func TestABestEffortActionWhosePodCannotStartIsAWarning(t *testing.T) {
	t.Parallel()
	f := deploymenttest.NewClusterFixture(t, apptest.Options{Work: true, Actions: true, ActionImage: "styrmin.local/no-such-action-runner:1"})
	f.Env.Start(t)
	f.ImportCopy(t, "hello-web", "1.5.0", greetActions, greetActionsPy)
	name := kubetest.UniqueName("noimage")
	f.CleanUp(t, name)

	install := installGreeting(t, f, name)
	welcome := deploymenttest.HookStep(t, install, "welcome")
	require.Equal(t, executor.StepWarning, welcome.Status)
	require.Contains(t, welcome.Hook.Error, "Action welcome failed: ")
	require.Contains(t, welcome.Hook.Error, "did not start")
	require.Equal(t, deployment.StatusDeployed, deploymenttest.MustGet(t, f.Fixture, name).Status)
}

// TestActionsRunInADeploymentMadeAgainUnderTheSameName: a deployment in a
// namespace that Styrmin did not create (so its delete keeps it) is deleted
// and made again under the same name (a new id). Deleting it removed the
// service account of its action pods, so the new deployment's actions run
// as a service account of its own instead of being refused the old one.
func TestActionsRunInADeploymentMadeAgainUnderTheSameName(t *testing.T) {
	t.Parallel()
	f := deploymenttest.SetupClusterPods(t)
	ctx := context.Background()
	f.ImportCopy(t, "hello-web", "1.5.0", greetActions, greetActionsPy)
	name := kubetest.UniqueName("again")
	f.CleanUp(t, name)
	_, err := f.Cluster.Kube.Clientset.CoreV1().Namespaces().Create(ctx, &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: name}}, metav1.CreateOptions{})
	require.NoError(t, err)
	for range 2 {
		installGreeting(t, f, name)
		f.WaitTask(t, name, deploymenttest.Queued(t)(f.Svc.Queue(ctx, &deployment.RunAction{Name: name, Action: "greet", By: "alice"})))
		f.WaitTask(t, name, deploymenttest.Queued(t)(f.Svc.Queue(ctx, &deployment.Delete{Name: name, Confirm: name, By: "alice"})))
		_, err := f.Cluster.Kube.Clientset.CoreV1().ServiceAccounts(name).Get(ctx, actions.ServiceAccountName(name), metav1.GetOptions{})
		require.True(t, apierrors.IsNotFound(err), "the deleted deployment left no service account of its action pods: %v", err)
	}
}
