package runner_test

import (
	"context"
	"testing"

	"github.com/stretchr/testify/require"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/styrmin/styrmin/deployer"
	"github.com/styrmin/styrmin/deployment/deploymenttest"
	"github.com/styrmin/styrmin/devcluster/kubetest"
)

// TestAStartingWorkerGivesEveryDeploymentsNamespaceItsReviewer: a
// deployment made by a Styrmin that had no reviewers (its reviewer is
// removed here) gets its reviewer back when a worker starts
// (EnsureIdentities), so the web pods, which read as the reviewer, can show
// its page before its next task.
func TestAStartingWorkerGivesEveryDeploymentsNamespaceItsReviewer(t *testing.T) {
	t.Parallel()
	f := deploymenttest.SetupCluster(t)
	ctx := context.Background()
	name := kubetest.UniqueName("reviewed")
	f.CleanUp(t, name)
	f.WaitTask(t, name, deploymenttest.Queued(t)(f.Svc.Queue(ctx, deploymenttest.HelloWeb(name))))

	accounts := f.Cluster.Kube.Clientset.CoreV1().ServiceAccounts(name)
	require.NoError(t, accounts.Delete(ctx, deployer.ReviewerAccount, metav1.DeleteOptions{}))
	require.NoError(t, f.Cluster.Kube.Clientset.RbacV1().RoleBindings(name).Delete(ctx, deployer.ReviewerAccount, metav1.DeleteOptions{}))
	_, err := accounts.Get(ctx, deployer.ReviewerAccount, metav1.GetOptions{})
	require.True(t, apierrors.IsNotFound(err), "the reviewer is gone: %v", err)

	f.Svc.EnsureIdentities(ctx)

	_, err = accounts.Get(ctx, deployer.ReviewerAccount, metav1.GetOptions{})
	require.NoError(t, err, "the reviewer is back")
	_, err = f.Cluster.Kube.Clientset.RbacV1().RoleBindings(name).Get(ctx, deployer.ReviewerAccount, metav1.GetOptions{})
	require.NoError(t, err, "with its role")
}
