package deploy_test

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/chromedp/chromedp"
	"github.com/stretchr/testify/require"
	"helm.sh/helm/v3/pkg/action"
	"helm.sh/helm/v3/pkg/chart"
	"helm.sh/helm/v3/pkg/cli"
	"helm.sh/helm/v3/pkg/release"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/rest"
	"k8s.io/client-go/tools/clientcmd"

	"github.com/styrmin/styrmin/devcluster/kubetest"
	"github.com/styrmin/styrmin/handlers/handlerstest"
	"github.com/styrmin/styrmin/views"
)

// chartNamespace is where the cluster test installs Styrmin.
const chartNamespace = "styrmin-chart"

// deadline is every wait's limit: the machine is slow and busy.
const deadline = 8 * time.Minute

// clusterImage builds Styrmin's image and imports it into the local node
// (scripts/cluster-image), as tag when given; it returns the image's name.
func clusterImage(t *testing.T, tag ...string) string {
	t.Helper()
	return buildImage(t, "cluster-image", tag...)
}

// buildImage runs scripts/<script> (cluster-image, action-runner-image),
// which builds an image and imports it into the local node, and returns the
// image's name.
func buildImage(t *testing.T, script string, tag ...string) string {
	t.Helper()
	cmd := exec.Command(filepath.Join("..", "scripts", script), tag...)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	require.NoError(t, err, "%s", stderr.String())
	return strings.TrimSpace(string(out))
}

// chartRelease drives Helm's install and upgrade of the chart.
type chartRelease struct {
	cfg  *action.Configuration
	kube kubernetes.Interface
	rest *rest.Config
	// ns is the namespace the waits and dumps look in: chartNamespace, or
	// gitopsNamespace for the Argo CD-like apply.
	ns string
	// runner is the action-runner image the worker's action pods run
	// (scripts/action-runner-image).
	runner string
}

// newChartRelease drives the chart in chartNamespace, with the
// action-runner image built without an engine (scripts/action-runner-image).
func newChartRelease(t *testing.T, kubeconfig string) chartRelease {
	t.Helper()
	return chartReleaseIn(t, kubeconfig, chartNamespace, buildImage(t, "action-runner-image"))
}

// chartReleaseIn drives Helm's release "styrmin" in namespace ns, whose
// worker's action pods run the image runner.
func chartReleaseIn(t *testing.T, kubeconfig, ns, runner string) chartRelease {
	t.Helper()
	settings := cli.New()
	settings.KubeConfig = kubeconfig
	settings.SetNamespace(ns)
	cfg := new(action.Configuration)
	require.NoError(t, cfg.Init(settings.RESTClientGetter(), ns, "secret", t.Logf))
	restCfg, err := clientcmd.BuildConfigFromFlags("", kubeconfig)
	require.NoError(t, err)
	return chartRelease{cfg: cfg, kube: kubernetes.NewForConfigOrDie(restCfg), rest: restCfg, ns: ns, runner: runner}
}

// values are the chart's values for Styrmin's image and the action-runner image.
func (r chartRelease) values(image string) map[string]any {
	repo, tag, _ := strings.Cut(image, ":")
	runnerRepo, runnerTag, _ := strings.Cut(r.runner, ":")
	return map[string]any{"image": map[string]any{"repository": repo, "tag": tag}, "postgresql": map[string]any{"enabled": true},
		"actions": map[string]any{"image": map[string]any{"repository": runnerRepo, "tag": runnerTag}}}
}

// installChart installs ch with values as release "styrmin" in r.ns, as
// `helm install styrmin CHART -n NS --create-namespace` does (Helm's own
// install action: there is no helm command here), and removes it, its
// namespace and the namespaces of the deployments named by
// deploymentNamespaces, when the test ends.
func (r chartRelease) installChart(t *testing.T, ch *chart.Chart, values map[string]any, deploymentNamespaces ...string) {
	t.Helper()
	t.Cleanup(func() {
		if _, err := action.NewUninstall(r.cfg).Run("styrmin"); err != nil {
			t.Logf("uninstall: %v", err)
		}
		for _, ns := range append([]string{r.ns}, deploymentNamespaces...) {
			_ = r.kube.CoreV1().Namespaces().Delete(context.Background(), ns, metav1.DeleteOptions{})
		}
	})
	in := action.NewInstall(r.cfg)
	in.ReleaseName, in.Namespace, in.CreateNamespace = "styrmin", r.ns, true
	in.Timeout = deadline
	_, err := in.Run(ch, values)
	r.dumpOnFailure(t, err)
}

func (r chartRelease) upgrade(t *testing.T, image string) {
	t.Helper()
	up := action.NewUpgrade(r.cfg)
	up.Namespace, up.Timeout, up.Wait = r.ns, deadline, true
	_, err := up.Run("styrmin", loadChart(t), r.values(image))
	r.dumpOnFailure(t, err)
}

// dumpOnFailure fails the test on err, first printing every pod's status and logs.
func (r chartRelease) dumpOnFailure(t *testing.T, err error) {
	t.Helper()
	if err == nil {
		return
	}
	r.dump(t)
	t.Fatal(err)
}

func (r chartRelease) dump(t *testing.T) {
	ctx := context.Background()
	pods, _ := r.kube.CoreV1().Pods(r.ns).List(ctx, metav1.ListOptions{})
	for _, p := range pods.Items {
		status, _ := json.MarshalIndent(p.Status, "", " ")
		t.Logf("pod %s: %s", p.Name, status)
		logs, _ := r.kube.CoreV1().Pods(r.ns).GetLogs(p.Name, &corev1.PodLogOptions{TailLines: ptr(int64(80))}).DoRaw(ctx)
		t.Logf("pod %s logs:\n%s", p.Name, logs)
	}
}

func ptr[T any](v T) *T { return &v }

// waitReady polls until the Deployment has want ready, updated replicas of image.
func (r chartRelease) waitReady(t *testing.T, name string, want int32, image string) {
	t.Helper()
	r.poll(t, fmt.Sprintf("%s has %d ready pods of %s and no other pod", name, want, image), func() bool {
		d, err := r.kube.AppsV1().Deployments(r.ns).Get(context.Background(), name, metav1.GetOptions{})
		if err != nil || d.Spec.Template.Spec.Containers[0].Image != image || d.Status.ReadyReplicas != want ||
			d.Status.UpdatedReplicas != want || d.Status.Replicas != want {
			return false
		}
		// A replaced pod still terminating may still be in the Service's
		// routes on the node: wait until it is gone.
		pods, err := r.kube.CoreV1().Pods(r.ns).List(context.Background(), metav1.ListOptions{
			LabelSelector: "app.kubernetes.io/component=" + strings.TrimPrefix(name, "styrmin-")})
		return err == nil && len(pods.Items) == int(want)
	})
}

func (r chartRelease) poll(t *testing.T, what string, ok func() bool) {
	t.Helper()
	end := time.Now().Add(deadline)
	for !ok() {
		if time.Now().After(end) {
			r.dump(t)
			t.Fatalf("waited %s: %s", deadline, what)
		}
		time.Sleep(2 * time.Second)
	}
}

func (r chartRelease) pods(t *testing.T, component string) []corev1.Pod {
	t.Helper()
	pods, err := r.kube.CoreV1().Pods(r.ns).List(context.Background(), metav1.ListOptions{LabelSelector: "app.kubernetes.io/component=" + component})
	require.NoError(t, err)
	var live []corev1.Pod
	for _, p := range pods.Items {
		if p.DeletionTimestamp == nil {
			live = append(live, p)
		}
	}
	return live
}

// api calls Styrmin's REST API with a token.
type api struct {
	base, token string
}

func (a api) call(t *testing.T, method, path string, body, out any) int {
	t.Helper()
	status, data := handlerstest.CallServer(t, a.base, a.token, method, path, body)
	if out != nil && status < 300 {
		require.NoError(t, json.Unmarshal(data, out), "%s", data)
	}
	require.Less(t, status, 300, "%s %s: %s", method, path, data)
	return status
}

type task struct {
	ID      int64  `json:"id"`
	Status  string `json:"status"`
	Message string `json:"message"`
	Steps   []struct {
		Title, Status, Message string
	} `json:"steps"`
}

func (a api) task(t *testing.T, id int64) task {
	t.Helper()
	var tk task
	a.call(t, http.MethodGet, fmt.Sprintf("/tasks/%d", id), nil, &tk)
	return tk
}

func (tk task) ended() bool {
	return tk.Status == "succeeded" || tk.Status == "failed" || tk.Status == "canceled"
}

// TestChartRunsStyrminOnTheLocalCluster installs the chart from the image
// built here (2 web pods, 1 worker). From the host, Chromium signs in
// through the Service, deploys Hello Web from its install form, loses a web
// pod mid-session and, in the same session on the other replica, upgrades
// Hello Web through the upgrade form and its review page and sees it run
// (the task succeeds on the page; Hello Web's own page answers with the new
// title). Then, through the API with the chart's RBAC: an upgrade whose
// worker is killed midway is recovered by the replacement worker, and a
// `helm upgrade` of Styrmin to a new image keeps the deployments, their
// history and the browser's session.
func TestChartRunsStyrminOnTheLocalCluster(t *testing.T) {
	kubeconfig := kubetest.Kubeconfig(t)
	browser := handlerstest.NewBrowser(t)
	image := clusterImage(t)
	r := newChartRelease(t, kubeconfig)
	ctx := context.Background()

	r.applyAsArgoCD(t, image)

	r.installChart(t, loadChart(t), r.values(image), "chart-hello")
	r.waitReady(t, "styrmin-web", 2, image)
	r.waitReady(t, "styrmin-worker", 1, image)
	helmTest := action.NewReleaseTesting(r.cfg)
	helmTest.Namespace, helmTest.Timeout = chartNamespace, deadline
	tested, err := helmTest.Run("styrmin")
	r.dumpOnFailure(t, err)
	var probes int
	for _, h := range tested.Hooks {
		if slices.Contains(h.Events, release.HookTest) {
			probes++
			require.Equal(t, release.HookPhaseSucceeded, h.LastRun.Phase, "helm test: styrmin probe signed in and read /readyz")
		}
	}
	require.Equal(t, 1, probes)
	svc, err := r.kube.CoreV1().Services(chartNamespace).Get(ctx, "styrmin", metav1.GetOptions{})
	require.NoError(t, err)
	base := "http://" + svc.Spec.ClusterIP
	secret, err := r.kube.CoreV1().Secrets(chartNamespace).Get(ctx, "styrmin", metav1.GetOptions{})
	require.NoError(t, err)

	handlerstest.StepWithin(t, browser, "sign in through the Service", pageTime,
		handlerstest.SignIn(base+"/signin", "admin", string(secret.Data["admin-password"])),
		chromedp.WaitVisible(chromedp.CSS(`[data-testid="driver-grid"]`)),
	)
	handlerstest.StepWithin(t, browser, "create an API token on its page", pageTime,
		chromedp.Navigate(base+"/account/tokens"),
		chromedp.SendKeys(chromedp.CSS(`input[name="name"]`), "chart test"),
		chromedp.Click(chromedp.CSS(`[data-testid="create-token"]`)),
		chromedp.WaitVisible(chromedp.CSS(`[data-testid="new-token"]`)),
	)
	token := strings.TrimSpace(handlerstest.Eval[string](t, browser, `document.querySelector('[data-testid="new-token"]').textContent`))
	require.True(t, strings.HasPrefix(token, "stp_"), "token %q", token)
	a := api{base: base, token: token}
	a.call(t, http.MethodPut, "/namespace-policy", map[string]any{"allowed": []string{"chart-*"}, "create_namespaces": true}, nil)

	handlerstest.StepWithin(t, browser, "open Hello Web's install form", pageTime,
		chromedp.Navigate(base+"/drivers/hello-web"),
		chromedp.WaitVisible(chromedp.CSS(`[data-testid="deploy-link"]`)),
		chromedp.Click(chromedp.CSS(`[data-testid="deploy-link"]`)),
		chromedp.WaitVisible(chromedp.CSS(`[data-testid="install-form"]`)),
	)
	handlerstest.StepWithin(t, browser, "deploy Hello Web from the form", pageTime,
		chromedp.SendKeys(chromedp.CSS(`#deploy-name`), "chart-hello"),
		chromedp.SetValue(chromedp.CSS(`#param-site_title`), "Chart shop"),
		chromedp.Click(chromedp.CSS(`[data-testid="install-submit"]`)),
		chromedp.WaitVisible(chromedp.CSS(`[data-testid="deployment-header"]`)),
	)
	require.Equal(t, "/deployments/chart-hello", handlerstest.Eval[string](t, browser, `location.pathname`))
	handlerstest.WaitLong(t, browser, "the install succeeds on the deployment page",
		handlerstest.NewestTask+`.dataset.status === "`+views.StatusSucceeded+`"`, deadline)
	var installs struct{ Items []task }
	a.call(t, http.MethodGet, "/tasks?deployment=chart-hello&kind=install", nil, &installs)
	require.Len(t, installs.Items, 1)
	smokeTests := 0
	for _, s := range installs.Items[0].Steps {
		if strings.Contains(s.Title, "action smoke_test") {
			smokeTests++
			require.Equal(t, "succeeded", s.Status, "the smoke test ran as a pod from the action-runner image: %+v", s)
		}
	}
	require.Equal(t, 1, smokeTests, "the install's post-install hook step: %+v", installs.Items[0].Steps)

	victim := r.pods(t, "web")[0].Name
	require.NoError(t, r.kube.CoreV1().Pods(chartNamespace).Delete(ctx, victim, metav1.DeleteOptions{}))
	r.poll(t, "the deleted web pod is gone from the Service", func() bool {
		ep, err := r.kube.CoreV1().Endpoints(chartNamespace).Get(ctx, "styrmin", metav1.GetOptions{})
		if err != nil {
			return false
		}
		for _, s := range ep.Subsets {
			for _, addr := range append(s.Addresses, s.NotReadyAddresses...) {
				if addr.TargetRef != nil && addr.TargetRef.Name == victim {
					return false
				}
			}
		}
		return true
	})
	handlerstest.StepWithin(t, browser, "still signed in after the pod's deletion: open the upgrade form", pageTime,
		chromedp.Navigate(base+"/deployments/chart-hello"),
		chromedp.WaitVisible(chromedp.CSS(`[data-testid="upgrade-link"]`)),
		chromedp.Click(chromedp.CSS(`[data-testid="upgrade-link"]`)),
		chromedp.WaitVisible(chromedp.CSS(`[data-testid="upgrade-form"]`)),
	)
	require.Equal(t, "Chart shop", handlerstest.Eval[string](t, browser, `document.querySelector('#param-site_title').value`), "the form starts from the current values")
	handlerstest.StepWithin(t, browser, "change the title and review the upgrade (a dry run on the cluster)", pageTime,
		chromedp.SetValue(chromedp.CSS(`#param-site_title`), "Chart shop upgraded"),
		chromedp.Click(chromedp.CSS(`[data-testid="upgrade-submit"]`)),
		chromedp.WaitVisible(chromedp.CSS(`[data-testid="review-changes"]`)),
	)
	require.Equal(t, "changed", handlerstest.Eval[string](t, browser, `document.querySelector('[data-testid="param-change"][data-name="site_title"]').dataset.kind`))
	require.False(t, handlerstest.Eval[bool](t, browser, `!!document.querySelector('[data-testid="dry-run-error"]')`), "the dry run works with the chart's RBAC")
	handlerstest.StepWithin(t, browser, "confirm the upgrade", pageTime,
		chromedp.Click(chromedp.CSS(`[data-testid="review-confirm"]`)),
		chromedp.WaitVisible(chromedp.CSS(`[data-testid="deployment-header"]`)),
	)
	require.Contains(t, handlerstest.Eval[string](t, browser, handlerstest.NewestTask+`.querySelector('h3').textContent`), "Upgrade")
	handlerstest.WaitLong(t, browser, "the upgrade succeeds on the deployment page",
		handlerstest.NewestTask+`.dataset.status === "`+views.StatusSucceeded+`"`, deadline)
	hello, err := r.kube.CoreV1().Services("chart-hello").Get(ctx, "chart-hello-hello-web", metav1.GetOptions{})
	require.NoError(t, err)
	r.poll(t, "Hello Web's page answers with the upgraded title", func() bool {
		return strings.Contains(hostGet("http://"+hello.Spec.ClusterIP+"/"), "<title>Chart shop upgraded</title>")
	})

	var accepted struct{ Task task }
	a.call(t, http.MethodPost, "/deployments/chart-hello/upgrade", map[string]any{"parameters": map[string]any{"message": "upgraded under the chart"}}, &accepted)
	worker := r.pods(t, "worker")[0]
	for running := false; !running; time.Sleep(100 * time.Millisecond) {
		tk := a.task(t, accepted.Task.ID)
		require.False(t, tk.ended(), "the upgrade ended before the worker could be killed in it: %+v", tk)
		for _, s := range tk.Steps {
			running = running || s.Status == "running"
		}
	}
	// SIGKILL, not a pod deletion: Kubernetes only ever sends SIGTERM first,
	// and on SIGTERM the worker drains, finishing the upgrade itself.
	killContainer(t, worker)
	upgraded := a.waitEnded(t, r, accepted.Task.ID)
	var recovered bool
	for _, s := range upgraded.Steps {
		recovered = recovered || strings.Contains(s.Message, "The Styrmin process running this task stopped")
	}
	require.True(t, recovered, "the replacement worker recovered the task: %+v", upgraded)

	newImage := clusterImage(t, image[strings.LastIndex(image, ":")+1:]+"-next")
	r.upgrade(t, newImage)
	kept, err := r.kube.CoreV1().Secrets(chartNamespace).Get(ctx, "styrmin", metav1.GetOptions{})
	require.NoError(t, err)
	require.Equal(t, secret.Data, kept.Data, "the upgrade's keys hook changed no key")
	r.waitReady(t, "styrmin-web", 2, newImage)
	r.waitReady(t, "styrmin-worker", 1, newImage)
	var page struct {
		Items []struct{ Name string } `json:"items"`
	}
	a.call(t, http.MethodGet, "/deployments", nil, &page)
	require.Len(t, page.Items, 1)
	require.Equal(t, "chart-hello", page.Items[0].Name, "the deployment outlives Styrmin's upgrade")
	require.Equal(t, upgraded.Status, a.task(t, upgraded.ID).Status, "and so does its history")
	handlerstest.StepWithin(t, browser, "the browser's session outlives Styrmin's upgrade", pageTime,
		chromedp.Navigate(base+"/deployments/chart-hello"),
		chromedp.WaitVisible(chromedp.CSS(`[data-testid="deployment-header"]`)),
	)
	require.Equal(t, 3, handlerstest.Eval[int](t, browser, `document.querySelectorAll('[data-testid="task-list"] [data-testid="task"]').length`),
		"the page shows the install and both upgrades")
}

// pageTime is a browser step's limit: a page through the Service on a
// busy machine, an upgrade's review with its dry run on the cluster.
const pageTime = 2 * time.Minute

// hostGet fetches url from the host and returns its body; empty on any
// failure (the caller polls).
func hostGet(url string) string {
	resp, err := (&http.Client{Timeout: 10 * time.Second}).Get(url)
	if err != nil {
		return ""
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(resp.Body)
	if err != nil || resp.StatusCode != http.StatusOK {
		return ""
	}
	return string(body)
}

func (a api) waitEnded(t *testing.T, r chartRelease, id int64) task {
	t.Helper()
	var tk task
	r.poll(t, fmt.Sprintf("task %d ends", id), func() bool {
		tk = a.task(t, id)
		return tk.ended()
	})
	return tk
}

// killContainer sends SIGKILL to the processes of pod's first container, as
// a crash would: they are processes of this machine (the node is local),
// found by the container's id in their cgroup. Each is stopped (SIGSTOP)
// before any is killed, so that none sees another die: a worker that saw
// its chart render's child killed first would record the render as past
// its memory budget (the OOM killer's signature) before dying itself.
func killContainer(t *testing.T, pod corev1.Pod) {
	t.Helper()
	require.NotEmpty(t, pod.Status.ContainerStatuses, "pod %s has a running container", pod.Name)
	id := strings.TrimPrefix(pod.Status.ContainerStatuses[0].ContainerID, "containerd://")
	require.NotEmpty(t, id, "pod %s's container id", pod.Name)
	stopped := map[int]bool{}
	// A second look finds a process started before its parent stopped.
	for range 2 {
		for _, pid := range containerProcesses(t, id) {
			if !stopped[pid] && syscall.Kill(pid, syscall.SIGSTOP) == nil {
				stopped[pid] = true
			}
		}
	}
	var killed []int
	for pid := range stopped {
		if syscall.Kill(pid, syscall.SIGKILL) == nil {
			killed = append(killed, pid)
		}
	}
	require.NotEmpty(t, killed, "no process of this machine is in container %s of pod %s", id, pod.Name)
	t.Logf("killed processes %v of pod %s", killed, pod.Name)
}

// containerProcesses are the processes of this machine in the container
// whose id is id.
func containerProcesses(t *testing.T, id string) []int {
	t.Helper()
	cgroups, err := filepath.Glob("/proc/[0-9]*/cgroup")
	require.NoError(t, err)
	var pids []int
	for _, path := range cgroups {
		data, err := os.ReadFile(path)
		if err != nil || !bytes.Contains(data, []byte(id)) {
			continue // a process that ended meanwhile, or another container's
		}
		pid, err := strconv.Atoi(filepath.Base(filepath.Dir(path)))
		require.NoError(t, err)
		pids = append(pids, pid)
	}
	return pids
}
