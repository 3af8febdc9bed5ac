package web_test

import (
	"context"
	"encoding/json"
	"net/http"
	"slices"
	"strings"
	"testing"
	"testing/fstest"
	"time"

	"github.com/chromedp/chromedp"
	"github.com/stretchr/testify/require"
	"gopkg.in/yaml.v3"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/styrmin/styrmin/api"
	"github.com/styrmin/styrmin/auth"
	"github.com/styrmin/styrmin/deployment"
	"github.com/styrmin/styrmin/devcluster/kubetest"
	"github.com/styrmin/styrmin/drivers/bundled/bundledtest"
	"github.com/styrmin/styrmin/handlers/handlerstest"
	"github.com/styrmin/styrmin/views"
)

// crashingVersion is the Hello Web copy whose nginx configuration nginx
// refuses, so that its pods crash-loop, with a secret parameter api_key.
const crashingVersion = "1.0.3"

// crashingHelloWeb is Hello Web as crashingVersion: its configuration holds a
// directive nginx does not know, named after the secret parameter api_key,
// so that nginx's complaint in the container's log quotes the secret.
func crashingHelloWeb(t *testing.T) fstest.MapFS {
	t.Helper()
	bundle := bundledtest.Edited(t, "hello-web", crashingVersion, func(spec *yaml.Node) {
		var secret yaml.Node
		require.NoError(t, yaml.Unmarshal([]byte("name: api_key\ntitle: API key\ntype: secret\n"), &secret))
		params := bundledtest.MappingValue(t, spec, "parameters")
		params.Content = append(params.Content, secret.Content[0])
		values := bundledtest.MappingValue(t, bundledtest.MappingValue(t, bundledtest.MappingValue(t, spec, "helm"), "main"), "values")
		values.Value += "apiKey: {{ .Parameters.api_key | quote }}\n"
	})
	conf := bundle["chart/templates/configmap.yaml"]
	broken := strings.Replace(string(conf.Data), "listen 80;", "listen 80;\n      no_such_directive_{{ .Values.apiKey }} on;", 1)
	require.NotEqual(t, string(conf.Data), broken, "the copy breaks nginx's configuration")
	conf.Data = []byte(broken)
	return bundle
}

// TestBrowserShowsDeploymentHealthOnTheCluster installs on the local
// cluster's real node a Hello Web whose nginx refuses its configuration and
// a sound one: through the REST API and on the pages, with a read-only
// user, the first is Degraded with its pod's reason and a warning event,
// the second turns Healthy live, then Stopped; an event and the container's
// log that quote the deployment's secret show it redacted.
func TestBrowserShowsDeploymentHealthOnTheCluster(t *testing.T) {
	t.Parallel()
	env := handlerstest.NewClusterEnv(t)
	ctx := context.Background()
	_, err := env.Catalog.ImportFS(ctx, crashingHelloWeb(t), ".", "test")
	require.NoError(t, err)
	token := env.APIToken(t, "watcher", auth.ReadOnly)
	_, err = env.Users.Create(ctx, auth.NewUser{Username: "viewer", Password: handlerstest.CatalogPassword, Role: auth.ReadOnly})
	require.NoError(t, err)
	const secret = "k3y-9f8e7d6c5b4a3928"

	crashing, sound := kubetest.UniqueName("crash"), kubetest.UniqueName("sound")
	env.RemoveWhenDone(t, crashing)
	env.RemoveWhenDone(t, sound)
	soundTask, err := env.Service.Queue(ctx, &deployment.Install{Driver: "hello-web", DriverVersion: "1.0.0", Name: sound, AppVersion: "1.27.0",
		Parameters: deployment.FormInput{"replicas": "1"}, By: "alice"})
	require.NoError(t, err)
	crashTask, err := env.Service.Queue(ctx, &deployment.Install{Driver: "hello-web", DriverVersion: crashingVersion, Name: crashing, AppVersion: "1.27.0",
		Parameters: deployment.FormInput{"replicas": "1", "api_key": secret}, By: "alice"})
	require.NoError(t, err)

	browser := handlerstest.NewBrowser(t)
	handlerstest.Step(t, browser, "a read-only user opens the sound deployment while it installs",
		handlerstest.SignIn(env.URL+"/deployments/"+sound, "viewer", handlerstest.CatalogPassword),
		chromedp.WaitVisible(chromedp.CSS(`[data-testid="deployment-health"]`)),
	)
	handlerstest.Eval[bool](t, browser, `window.__sameDocument = true`)
	handlerstest.WaitLong(t, browser, "its health turns Healthy without a reload",
		`document.querySelector('[data-testid="deployment-health"]').dataset.health === "`+views.HealthHealthy+`"`, taskTime)
	require.True(t, handlerstest.Eval[bool](t, browser, `window.__sameDocument === true`), "the health section updated itself")
	require.Equal(t, "Running", handlerstest.Eval[string](t, browser, `document.querySelector('[data-testid="pod"] [data-testid="pod-phase"]').textContent.trim()`))
	env.WaitEnded(t, sound, soundTask.TaskID)

	degraded := waitHealth(t, env.URL, token, crashing, func(d api.Deployment) bool {
		return d.Health.Word == api.HealthWordDegraded && d.Events != nil && slices.ContainsFunc(*d.Events, func(e api.ClusterEvent) bool {
			return e.Type == "Warning" && strings.HasPrefix(e.Object, "Pod/")
		})
	})
	require.NotEmpty(t, *degraded.Pods)
	pod := (*degraded.Pods)[0]
	require.True(t, pod.Waiting != nil && *pod.Waiting == "CrashLoopBackOff" || pod.LastTermination != nil && *pod.LastTermination == "Error",
		"the pod says why it fails: %+v", pod)
	require.Positive(t, pod.Restarts)
	require.Contains(t, strings.Join(degraded.Health.Reasons, "\n"), "pod "+pod.Name)
	require.True(t, slices.ContainsFunc(*degraded.Events, func(e api.ClusterEvent) bool { return e.Type == "Warning" && e.Object == "Pod/"+pod.Name }),
		"a warning event of the pod: %+v", *degraded.Events)
	require.Equal(t, "Warning", (*degraded.Events)[0].Type, "warnings come first")

	// nginx quotes the directive it does not know, secret and all, in its
	// log (the container's newest run: between a crash and the next start
	// the node serves the crashed run's).
	var log []byte
	require.Eventually(t, func() bool {
		var status int
		status, log = handlerstest.CallServer(t, env.URL, token, http.MethodGet, "/deployments/"+crashing+"/pods/"+pod.Name+"/logs?tail_lines=50", nil)
		return status == http.StatusOK && strings.Contains(string(log), "unknown directive")
	}, taskTime, time.Second, "nginx's complaint shows in the container's log")
	require.Contains(t, string(log), `unknown directive "no_such_directive_<redacted>"`)
	require.NotContains(t, string(log), secret, "no secret in the container's log")

	// The attack: an event that quotes the deployment's secret, as a
	// careless controller or chart might write it.
	_, err = env.Cluster.Kube.Clientset.CoreV1().Events(crashing).Create(ctx, &corev1.Event{
		ObjectMeta: metav1.ObjectMeta{Name: "leak", Namespace: crashing}, Type: "Warning", Reason: "Leaked",
		Message:        "calling the backend with " + secret + " failed",
		InvolvedObject: corev1.ObjectReference{Kind: "Pod", Name: pod.Name, Namespace: crashing}, LastTimestamp: metav1.Now(), Count: 1,
	}, metav1.CreateOptions{})
	require.NoError(t, err)
	status, body := handlerstest.CallServer(t, env.URL, token, http.MethodGet, "/deployments/"+crashing, nil)
	require.Equal(t, http.StatusOK, status)
	require.NotContains(t, string(body), secret, "no secret in the API's answer")
	var read api.Deployment
	require.NoError(t, json.Unmarshal(body, &read))
	i := slices.IndexFunc(*read.Events, func(e api.ClusterEvent) bool { return e.Reason == "Leaked" })
	require.GreaterOrEqual(t, i, 0, "the event is shown: %+v", *read.Events)
	require.Equal(t, "calling the backend with <redacted> failed", (*read.Events)[i].Message)

	handlerstest.Step(t, browser, "the read-only user opens the crashing deployment",
		chromedp.Navigate(env.URL+"/deployments/"+crashing),
		chromedp.WaitVisible(chromedp.CSS(`[data-testid="deployment-health"]`)),
	)
	require.Equal(t, views.HealthDegraded, handlerstest.Eval[string](t, browser, `document.querySelector('[data-testid="deployment-health"]').dataset.health`))
	require.Regexp(t, `CrashLoopBackOff|Error`, handlerstest.Eval[string](t, browser, `document.querySelector('[data-testid="pod-reason"]').textContent`))
	require.True(t, handlerstest.Eval[bool](t, browser, `!!document.querySelector('[data-testid="event"][data-type="Warning"]')`), "a warning event is shown")
	require.NotContains(t, handlerstest.Eval[string](t, browser, `document.documentElement.outerHTML`), secret, "no secret on the page")

	stop, err := env.Service.Queue(ctx, &deployment.Stop{Name: sound, By: "alice"})
	require.NoError(t, err)
	env.WaitEnded(t, sound, stop.TaskID)
	waitHealth(t, env.URL, token, sound, func(d api.Deployment) bool { return d.Health.Word == api.HealthWordStopped })

	handlerstest.Step(t, browser, "the list shows each one's health",
		chromedp.Navigate(env.URL+"/deployments"),
		chromedp.WaitVisible(chromedp.CSS(`[data-testid="deployments-table"]`)),
	)
	badge := func(name string) string {
		return handlerstest.Eval[string](t, browser, `document.querySelector('[data-testid="deployment"][data-name="`+name+`"] [data-testid="health-word"]').dataset.health`)
	}
	require.Equal(t, views.HealthDegraded, badge(crashing))
	require.Equal(t, views.HealthStopped, badge(sound))

	require.NoError(t, env.Service.CancelTask(ctx, crashing, crashTask.TaskID, "alice"))
	env.WaitEnded(t, crashing, crashTask.TaskID)
}

// waitHealth reads a deployment through the REST API with token until its
// health is as want says, and returns that read.
func waitHealth(t *testing.T, base, token, name string, want func(api.Deployment) bool) api.Deployment {
	t.Helper()
	var d api.Deployment
	for deadline := time.Now().Add(taskTime); ; time.Sleep(2 * time.Second) {
		status, body := handlerstest.CallServer(t, base, token, http.MethodGet, "/deployments/"+name, nil)
		require.Equal(t, http.StatusOK, status, "%s", body)
		d = api.Deployment{}
		require.NoError(t, json.Unmarshal(body, &d))
		if d.Health != nil && want(d) {
			return d
		}
		require.True(t, time.Now().Before(deadline), "%s is not as awaited after %s: %+v, events %+v", name, taskTime, d.Health, d.Events)
	}
}
