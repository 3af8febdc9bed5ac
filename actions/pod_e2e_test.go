package actions_test

import (
	"context"
	"encoding/json"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	authorizationv1 "k8s.io/api/authorization/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/rand"

	"github.com/styrmin/styrmin/actions"
	"github.com/styrmin/styrmin/devcluster/kubetest"
	"github.com/styrmin/styrmin/drivers"
	"github.com/styrmin/styrmin/kube"
)

// These tests run actions as pods on the local cluster's real node, from the
// action-runner image (scripts/action-runner-image), against an action API
// served by the test where pods reach the host (the API server's address):
// the shared behaviour tests of actions_test.go (through eachRuntime), and
// those below, of the pod runtime alone.

// podEnv is a namespace of the local cluster, the pod runtime on it and a
// fake action API answering GET run for one token.
type podEnv struct {
	client    *kube.Client
	namespace string
	runtime   *actions.Pod
	apiURL    string
	mu        sync.Mutex
	runs      map[string]runAnswer
}

// runAnswer is what GET run answers for a token.
type runAnswer struct {
	Files   map[string][]byte `json:"files"`
	Prompts map[string]any    `json:"prompts"`
}

func newPodEnv(t *testing.T) *podEnv {
	t.Helper()
	kubeconfig := kubetest.Kubeconfig(t)
	client, err := kube.Connect(kubeconfig, "")
	require.NoError(t, err)
	env := &podEnv{client: client, namespace: "act-" + rand.String(6), runs: map[string]runAnswer{}}
	env.runtime = &actions.Pod{Client: client.Clientset, Image: kubetest.ActionRunnerImage(t), StartTimeout: time.Minute}
	ctx := context.Background()
	_, err = client.EnsureNamespace(ctx, env.namespace, true, nil)
	require.NoError(t, err)
	t.Cleanup(func() { require.NoError(t, client.DeleteNamespace(context.Background(), env.namespace)) })
	ln, err := net.Listen("tcp", net.JoinHostPort(kubetest.HostForPods(t, kubeconfig), "0"))
	require.NoError(t, err)
	srv := &http.Server{Handler: http.HandlerFunc(env.serveRun), ReadHeaderTimeout: 10 * time.Second}
	go srv.Serve(ln) //nolint:errcheck // ends with Close
	t.Cleanup(func() { srv.Close() })
	env.apiURL = "http://" + ln.Addr().String()
	return env
}

// serveRun answers GET /api/action/v1/run for a known token.
func (e *podEnv) serveRun(w http.ResponseWriter, r *http.Request) {
	e.mu.Lock()
	run, ok := e.runs[strings.TrimPrefix(r.Header.Get("Authorization"), "Bearer ")]
	e.mu.Unlock()
	w.Header().Set("Content-Type", "application/json")
	if r.URL.Path != "/api/action/v1/run" || !ok {
		w.WriteHeader(http.StatusUnauthorized)
		json.NewEncoder(w).Encode(map[string]string{"error": "unknown token"}) //nolint:errcheck // test server
		return
	}
	json.NewEncoder(w).Encode(run) //nolint:errcheck // test server
}

// startsWithin leaves a pod time to be scheduled and started on a busy node.
func (e *podEnv) startsWithin() time.Duration { return 45 * time.Second }

// run runs r as a pod and returns the outcome, the log lines and the run's
// error. Whatever the end, the run's pod and its token's Secret are gone
// afterwards.
func (e *podEnv) run(ctx context.Context, t *testing.T, r actionRun) (actions.Outcome, []actions.Line, error) {
	t.Helper()
	token := "sta_" + rand.String(20)
	e.mu.Lock()
	e.runs[token] = runAnswer{Files: bundleOf(r.module), Prompts: r.prompts}
	e.mu.Unlock()
	env := testEnv
	env.APIURL, env.Token, env.Namespace = e.apiURL, token, e.namespace
	var lines []actions.Line
	out, err := e.runtime.Run(ctx, actions.Spec{
		Action: drivers.Action{Name: "test", Function: "actions:" + r.fn, Timeout: r.timeout},
		Env:    env,
		Labels: map[string]string{"styrmin.io/deployment": "42"},
	}, collect(&lines, r.sink))
	e.requireRunGone(t)
	return out, lines, err
}

// requireRunGone checks that the run's pod and Secret no longer exist.
func (e *podEnv) requireRunGone(t *testing.T) {
	t.Helper()
	core := e.client.Clientset.CoreV1()
	_, err := core.Pods(e.namespace).Get(context.Background(), actions.PodName(testEnv.Release, testEnv.StepID), metav1.GetOptions{})
	require.True(t, apierrors.IsNotFound(err), "the action's pod is deleted at the end: %v", err)
	_, err = core.Secrets(e.namespace).Get(context.Background(), actions.PodName(testEnv.Release, testEnv.StepID), metav1.GetOptions{})
	require.True(t, apierrors.IsNotFound(err), "the action's token Secret is deleted at the end: %v", err)
}

func TestPodThatCannotStartFailsTheRunSayingWhy(t *testing.T) {
	t.Parallel()
	e := newPodEnv(t)
	e.runtime = &actions.Pod{Client: e.client.Clientset, Image: "styrmin.local/no-such-runner:1", StartTimeout: time.Minute}
	started := time.Now()
	_, _, err := e.run(context.Background(), t, actionRun{module: module, fn: "ok", timeout: "2m", prompts: map[string]any{"greeting": "world"}})
	require.Error(t, err)
	require.Contains(t, err.Error(), "did not start")
	require.Contains(t, err.Error(), "styrmin.local/no-such-runner:1")
	require.Less(t, time.Since(started), 90*time.Second)
}

// attackModule is an action that tries to reach what is not its own and
// returns what it reached.
const attackModule = `
import glob, json, os, ssl, urllib.request, urllib.error

def attack(host_file, api_server):
    reached = {}
    if os.path.exists("/var/run/secrets/kubernetes.io/serviceaccount"):
        reached["service_account_folder"] = os.listdir("/var/run/secrets/kubernetes.io/serviceaccount")
    if os.getuid() == 0 or os.geteuid() == 0:
        reached["root"] = True
    for path in [host_file, "/work/main/.cluster/kubeconfig", "/etc/kubernetes/admin.conf"]:
        if os.path.exists(path):
            reached[path] = True
    for environ in glob.glob("/proc/*/environ"):
        try:
            text = open(environ, "rb").read()
        except OSError:
            continue
        for secret in (b"STYRMIN_SECRET_KEY", b"STYRMIN_DATABASE_URL", b"KUBECONFIG"):
            if secret in text:
                reached[environ] = secret.decode()
    try:
        open("/usr/lib/python3/dist-packages/x", "w").write("x")
        reached["root_fs_writable"] = True
    except OSError:
        pass
    ctx = ssl.create_default_context()
    ctx.check_hostname, ctx.verify_mode = False, ssl.CERT_NONE
    try:
        urllib.request.urlopen(api_server + "/api/v1/namespaces/" + os.environ["STYRMIN_NAMESPACE"] + "/secrets", context=ctx, timeout=10)
        reached["secrets_listed"] = True
    except urllib.error.HTTPError as err:
        print("kubernetes API:", err.code)
    return reached
`

func TestPodActionReachesNothingOfTheServer(t *testing.T) {
	t.Parallel()
	e := newPodEnv(t)
	hostFile := filepath.Join(t.TempDir(), "host-secret")
	require.NoError(t, os.WriteFile(hostFile, []byte("STYRMIN_SECRET_KEY=x"), 0o644))
	out, lines, err := e.run(context.Background(), t, actionRun{module: attackModule, fn: "attack", timeout: "2m",
		prompts: map[string]any{"host_file": hostFile, "api_server": e.client.Config.Host}})
	require.NoError(t, err)
	require.False(t, out.Failed(), "%+v %v", out, lines)
	require.JSONEq(t, `{}`, string(out.Result), "what the action reached")
	require.Len(t, lines, 1)
	require.Regexp(t, `^kubernetes API: 40[13]$`, lines[0].Message, "a call without a token is refused")

	// Its service account, Styrmin's for the deployment, mounts no token
	// and may do nothing in the cluster's API.
	account, err := e.client.Clientset.CoreV1().ServiceAccounts(e.namespace).Get(context.Background(), actions.ServiceAccountName("web"), metav1.GetOptions{})
	require.NoError(t, err)
	require.False(t, *account.AutomountServiceAccountToken)
	require.Equal(t, map[string]string{actions.ManagedByLabel: actions.ManagedBy, "styrmin.io/deployment": "42"}, account.Labels)
	sa := "system:serviceaccount:" + e.namespace + ":" + actions.ServiceAccountName("web")
	for _, attr := range []authorizationv1.ResourceAttributes{
		{Namespace: e.namespace, Verb: "get", Resource: "secrets"},
		{Namespace: e.namespace, Verb: "list", Resource: "pods"},
		{Namespace: e.namespace, Verb: "create", Resource: "pods"},
		{Namespace: e.namespace, Verb: "create", Resource: "serviceaccounts", Subresource: "token"},
		{Verb: "list", Resource: "namespaces"},
		{Namespace: e.namespace, Verb: "create", Group: "batch", Resource: "jobs"},
	} {
		review, err := e.client.Clientset.AuthorizationV1().SubjectAccessReviews().Create(context.Background(), &authorizationv1.SubjectAccessReview{
			Spec: authorizationv1.SubjectAccessReviewSpec{User: sa, Groups: []string{"system:serviceaccounts", "system:serviceaccounts:" + e.namespace, "system:authenticated"}, ResourceAttributes: &attr},
		}, metav1.CreateOptions{})
		require.NoError(t, err)
		require.False(t, review.Status.Allowed, "the action's service account may %s %s", attr.Verb, attr.Resource)
	}
}
