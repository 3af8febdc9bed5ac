package drivertrial_test

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/tools/clientcmd"

	"github.com/styrmin/styrmin"
	"github.com/styrmin/styrmin/authoring"
	"github.com/styrmin/styrmin/devcluster/kubetest"
	"github.com/styrmin/styrmin/drivertrial"
)

// newDriver creates a driver folder named name from hello-web, with
// actionsPy appended to its actions.py (a function defined again there
// replaces the template's).
func newDriver(t *testing.T, name, actionsPy string) string {
	t.Helper()
	dir, err := authoring.New(t.Context(), t.TempDir(), name, authoring.DefaultTemplate)
	require.NoError(t, err)
	if actionsPy != "" {
		f, err := os.OpenFile(filepath.Join(dir, "actions.py"), os.O_APPEND|os.O_WRONLY, 0)
		require.NoError(t, err)
		_, err = f.WriteString("\n\n" + actionsPy)
		require.NoError(t, err)
		require.NoError(t, f.Close())
	}
	return dir
}

// trialRun is a trial of the driver folder dir on the local cluster in a
// new namespace: the options it ran with, its report and its result.
type trialRun struct {
	opts drivertrial.Options
	out  *bytes.Buffer
	err  error
}

// try runs a trial of dir on the local cluster with opts (its namespace,
// output and folder filled in).
func try(t *testing.T, kubeconfig, dir string, opts drivertrial.Options) trialRun {
	t.Helper()
	out := &bytes.Buffer{}
	opts.Path, opts.Kubeconfig, opts.Out, opts.TempDir = dir, kubeconfig, out, shortTempDir(t)
	if opts.Namespace == "" {
		opts.Namespace = kubetest.UniqueName("trial")
	}
	err := drivertrial.Run(t.Context(), opts)
	t.Logf("report:\n%s", out)
	return trialRun{opts: opts, out: out, err: err}
}

// shortTempDir is a new folder for the trial's Styrmin, removed when the
// test ends: short enough for PostgreSQL's socket path (t.TempDir's name is
// the test's) and enterable by the postgres user.
func shortTempDir(t *testing.T) string {
	t.Helper()
	dir, err := os.MkdirTemp("", "dt")
	require.NoError(t, err)
	require.NoError(t, os.Chmod(dir, 0o711))
	t.Cleanup(func() { os.RemoveAll(dir) })
	return dir
}

// requireStyrminRemoved checks that the trial's private Styrmin's folder
// (PostgreSQL's data) is removed.
func requireStyrminRemoved(t *testing.T, r trialRun) {
	t.Helper()
	left, err := os.ReadDir(r.opts.TempDir)
	require.NoError(t, err)
	require.Empty(t, left, "the private Styrmin's folder is removed")
}

// clientset is a client of the cluster of kubeconfig.
func clientset(t *testing.T, kubeconfig string) *kubernetes.Clientset {
	t.Helper()
	cfg, err := clientcmd.BuildConfigFromFlags("", kubeconfig)
	require.NoError(t, err)
	cs, err := kubernetes.NewForConfig(cfg)
	require.NoError(t, err)
	return cs
}

// requireAllGone checks that the trial left nothing: its namespace is gone
// from the cluster and its private Styrmin's folder (PostgreSQL's data) is
// removed.
func requireAllGone(t *testing.T, kubeconfig string, r trialRun) {
	t.Helper()
	_, err := clientset(t, kubeconfig).CoreV1().Namespaces().Get(context.Background(), r.opts.Namespace, metav1.GetOptions{})
	require.True(t, apierrors.IsNotFound(err), "namespace %s is gone: %v", r.opts.Namespace, err)
	requireStyrminRemoved(t, r)
	require.Contains(t, r.out.String(), "Namespace "+r.opts.Namespace+" is gone.\n")
}

func TestHelloWebPassesEveryStep(t *testing.T) {
	t.Parallel()
	kubeconfig := kubetest.Kubeconfig(t)
	r := try(t, kubeconfig, newDriver(t, "trial-web", ""), drivertrial.Options{Sets: []string{"replicas=1"}})
	require.NoError(t, r.err)
	report := r.out.String()
	order := []string{
		"install (install task): succeeded in ",
		"  Smoke test the new site (post-install action smoke_test): succeeded: Done.\n",
		"action fetch_page (action task): succeeded in ",
		"action restart (action task): succeeded in ",
		"    linked stop (stop task): succeeded in ",
		"    linked start (start task): succeeded in ",
		"upgrade (upgrade task): succeeded in ",
		"  Smoke test after the upgrade (post-upgrade action smoke_test_after_upgrade): succeeded: Done.\n",
		"stop (stop task): succeeded in ",
		"start (start task): succeeded in ",
		"delete (delete task): succeeded in ",
	}
	rest := report
	for _, want := range order {
		i := bytes.Index([]byte(rest), []byte(want))
		require.GreaterOrEqual(t, i, 0, "the report shows %q after the steps before it", want)
		rest = rest[i+len(want):]
	}
	require.Contains(t, report, "Start Web server: succeeded: Deployment trial-web-trial-web scaled to 1.", "--set replicas=1 reached the install")
	require.NotContains(t, report, "clean-up", "the delete step deleted it; nothing was left to clean up")
	requireAllGone(t, kubeconfig, r)
}

func TestACrashingManualActionFailsTheTrialAtItsStepWithItsCrashLine(t *testing.T) {
	t.Parallel()
	kubeconfig := kubetest.Kubeconfig(t)
	dir := newDriver(t, "trial-crash", `def fetch_page(path: str = "/") -> None:
    styrmin.log.info("about to fetch %s", path)
    raise RuntimeError("the page fetcher fell over on purpose")
`)
	r := try(t, kubeconfig, dir, drivertrial.Options{Sets: []string{"replicas=1"}})

	var step *drivertrial.StepError
	require.ErrorAs(t, r.err, &step)
	require.Equal(t, "action fetch_page", step.Step)
	require.Equal(t, "Action fetch_page failed: RuntimeError: the page fetcher fell over on purpose", step.Reason)
	report := r.out.String()
	require.Contains(t, report, "action fetch_page (action task): failed in ")
	require.Contains(t, report, "  Fetch a page (manual action fetch_page): failed: Action fetch_page failed: RuntimeError: the page fetcher fell over on purpose\n")
	require.Contains(t, report, "      INFO about to fetch /\n", "the action's log tail is shown")
	require.Contains(t, report, "      ERROR RuntimeError: the page fetcher fell over on purpose\n", "with the crash line")
	require.NotContains(t, report, "action restart", "the trial stops at the first failure")
	require.Contains(t, report, "clean-up: delete (delete task): succeeded in ")
	requireAllGone(t, kubeconfig, r)
}

func TestAnActionThatNeverEndsIsCancelledAtTheTimeoutAndCleanedUp(t *testing.T) {
	t.Parallel()
	kubeconfig := kubetest.Kubeconfig(t)
	dir := newDriver(t, "trial-hang", `def smoke_test() -> None:
    import time
    styrmin.log.info("waiting forever")
    time.sleep(3600)
`)
	start := time.Now()
	r := try(t, kubeconfig, dir, drivertrial.Options{Sets: []string{"replicas=1"}, Timeout: 45 * time.Second})

	var step *drivertrial.StepError
	require.ErrorAs(t, r.err, &step)
	require.Equal(t, "install", step.Step)
	require.Contains(t, step.Reason, "did not end within the trial's 45s (--timeout), and was cancelled")
	require.Contains(t, r.out.String(), "install (install task): canceled in ")
	require.Less(t, time.Since(start), 5*time.Minute, "the hanging action did not hold the trial")
	requireAllGone(t, kubeconfig, r)
}

func TestTheTrialRefusesAnExistingNamespaceAndTouchesNothing(t *testing.T) {
	t.Parallel()
	kubeconfig := kubetest.Kubeconfig(t)
	r := try(t, kubeconfig, newDriver(t, "trial-ns", ""), drivertrial.Options{Namespace: "default"})
	require.Equal(t, styrmin.EINVALID, styrmin.ErrorCode(r.err), "%v", r.err)
	require.ErrorContains(t, r.err, "Namespace default exists; a trial deploys into a new namespace and deletes it at the end")
	require.Empty(t, r.out.String())
	requireStyrminRemoved(t, r)
}

// TestAChartThatGrantsItselfClusterAdminIsRefusedNotApproved is the attack
// of a driver on the author's cluster: its chart binds its ServiceAccount to
// cluster-admin. The trial's Styrmin has no admin to approve that, so the
// install is refused with what needs approval, and nothing is granted.
func TestAChartThatGrantsItselfClusterAdminIsRefusedNotApproved(t *testing.T) {
	t.Parallel()
	kubeconfig := kubetest.Kubeconfig(t)
	dir := newDriver(t, "trial-grant", "")
	binding := kubetest.UniqueName("trial-grant")
	require.NoError(t, os.WriteFile(filepath.Join(dir, "chart", "templates", "grant.yaml"), []byte(`apiVersion: rbac.authorization.k8s.io/v1
kind: ClusterRoleBinding
metadata: {name: `+binding+`}
roleRef: {apiGroup: rbac.authorization.k8s.io, kind: ClusterRole, name: cluster-admin}
subjects:
- {kind: ServiceAccount, name: default, namespace: "{{ .Release.Namespace }}"}
`), 0o644))
	r := try(t, kubeconfig, dir, drivertrial.Options{})

	var step *drivertrial.StepError
	require.ErrorAs(t, r.err, &step)
	require.Equal(t, "install", step.Step)
	require.Contains(t, step.Reason, "binds ClusterRoleBinding of ClusterRole cluster-admin to ServiceAccount default")
	require.Contains(t, r.out.String(), "install: refused: ")
	cs := clientset(t, kubeconfig)
	_, err := cs.RbacV1().ClusterRoleBindings().Get(context.Background(), binding, metav1.GetOptions{})
	require.True(t, apierrors.IsNotFound(err), "nothing was granted: %v", err)
	requireAllGone(t, kubeconfig, r)
}

func TestKeepLeavesAFailedRunsNamespaceAndRemovesThePrivateStyrmin(t *testing.T) {
	t.Parallel()
	kubeconfig := kubetest.Kubeconfig(t)
	dir := newDriver(t, "trial-keep", `def smoke_test() -> None:
    raise RuntimeError("the site is not there on purpose")
`)
	r := try(t, kubeconfig, dir, drivertrial.Options{Sets: []string{"replicas=1"}, Keep: true})
	cs := clientset(t, kubeconfig)
	t.Cleanup(func() {
		_ = cs.CoreV1().Namespaces().Delete(context.Background(), r.opts.Namespace, metav1.DeleteOptions{})
	})

	var step *drivertrial.StepError
	require.ErrorAs(t, r.err, &step)
	require.Equal(t, "install", step.Step)
	require.Contains(t, step.Reason, "RuntimeError: the site is not there on purpose")
	require.NotContains(t, r.out.String(), "clean-up")
	require.Contains(t, r.out.String(), "Kept namespace "+r.opts.Namespace+" as the failure left it (--keep)")
	deployments, err := cs.AppsV1().Deployments(r.opts.Namespace).List(context.Background(), metav1.ListOptions{})
	require.NoError(t, err)
	require.Len(t, deployments.Items, 1, "the failed install's release is there to look at")
	requireStyrminRemoved(t, r)
}
