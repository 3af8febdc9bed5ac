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
// served by the test where pods reach the host (the API server's address).

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

// run runs fn of a bundle whose actions.py is module as a pod, and returns
// the outcome, the log lines and the run's error.
func (e *podEnv) run(ctx context.Context, t *testing.T, module, fn, timeout string, prompts map[string]any, sink func(actions.Line)) (actions.Outcome, []actions.Line, error) {
	t.Helper()
	token := "sta_" + rand.String(20)
	e.mu.Lock()
	e.runs[token] = runAnswer{Files: map[string][]byte{"actions.py": []byte(module), "driver.styrmin.yml": []byte("kind: Driver\n")}, Prompts: prompts}
	e.mu.Unlock()
	var lines []actions.Line
	out, err := e.runtime.Run(ctx, actions.Spec{
		Action: drivers.Action{Name: "test", Function: "actions:" + fn, Timeout: timeout},
		Env:    actions.Env{APIURL: e.apiURL, Token: token, Deployment: "web", Namespace: e.namespace, Release: "web", StepID: 7},
		Labels: map[string]string{"styrmin.io/deployment": "42"},
	}, func(l actions.Line) {
		lines = append(lines, l)
		if sink != nil {
			sink(l)
		}
	})
	return out, lines, err
}

// requirePodGone checks that the run's pod no longer exists.
func (e *podEnv) requirePodGone(t *testing.T) {
	t.Helper()
	_, err := e.client.Clientset.CoreV1().Pods(e.namespace).Get(context.Background(), actions.PodName("web", 7), metav1.GetOptions{})
	require.True(t, apierrors.IsNotFound(err), "the action's pod is deleted at the end: %v", err)
}

const podModule = `
import logging, os, sys, time
log = logging.getLogger("t")

def ok(a, b):
    print("hello from", os.getcwd() != "")
    log.warning("careful")
    return {"sum": a + b, "files": sorted(os.listdir("."))}

def crash():
    log.info("before")
    log.error("the first error\nsecond line")
    log.error("the second error")
    raise ValueError("bad label")

def sleeper():
    log.info("sleeping")
    time.sleep(600)
`

func TestPodRunsActionWithLogsAndResult(t *testing.T) {
	t.Parallel()
	e := newPodEnv(t)
	out, lines, err := e.run(context.Background(), t, podModule, "ok", "2m", map[string]any{"a": 2, "b": 3}, nil)
	require.NoError(t, err)
	require.False(t, out.Failed(), "%+v %v", out, lines)
	require.Equal(t, 0, out.ExitCode)
	require.JSONEq(t, `{"sum": 5, "files": ["actions.py", "driver.styrmin.yml"]}`, string(out.Result))
	require.Contains(t, lines, actions.Line{Level: "INFO", Message: "hello from True"})
	require.Contains(t, lines, actions.Line{Level: "WARNING", Message: "careful"})
	e.requirePodGone(t)

	sa, err := e.client.Clientset.CoreV1().ServiceAccounts(e.namespace).Get(context.Background(), actions.ServiceAccountName("web"), metav1.GetOptions{})
	require.NoError(t, err)
	require.False(t, *sa.AutomountServiceAccountToken)
	require.Equal(t, map[string]string{actions.ManagedByLabel: actions.ManagedBy, "styrmin.io/deployment": "42"}, sa.Labels)
}

func TestPodCrashLineIsTheFirstErrorLine(t *testing.T) {
	t.Parallel()
	e := newPodEnv(t)
	out, lines, err := e.run(context.Background(), t, podModule, "crash", "2m", nil, nil)
	require.NoError(t, err)
	require.Equal(t, 1, out.ExitCode)
	require.Equal(t, "the first error", out.FirstError)
	require.Equal(t, "ValueError: bad label", out.Exception)
	require.Equal(t, "the first error", out.ErrorLine(time.Minute))
	require.Contains(t, lines, actions.Line{Level: "INFO", Message: "before"})
	e.requirePodGone(t)
}

func TestPodTimeoutStopsTheAction(t *testing.T) {
	t.Parallel()
	e := newPodEnv(t)
	started := time.Now()
	// Long enough for the pod to start on a busy machine: the action must be
	// running when its time is up.
	out, lines, err := e.run(context.Background(), t, podModule, "sleeper", "45s", nil, nil)
	require.NoError(t, err)
	require.True(t, out.TimedOut, "%+v %v", out, lines)
	require.True(t, out.Failed())
	require.Less(t, time.Since(started), 2*time.Minute)
	require.Equal(t, "the action did not finish within its timeout of 45s and was stopped", out.ErrorLine(45*time.Second))
	require.Contains(t, lines, actions.Line{Level: "INFO", Message: "sleeping"})
	e.requirePodGone(t)
}

func TestPodCancellationStopsTheAction(t *testing.T) {
	t.Parallel()
	e := newPodEnv(t)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	out, lines, err := e.run(ctx, t, podModule, "sleeper", "10m", nil, func(l actions.Line) {
		if l.Message == "sleeping" { // the action runs: cancel it now
			cancel()
		}
	})
	require.NoError(t, err)
	require.True(t, out.Canceled, "%+v %v", out, lines)
	require.Equal(t, -1, out.ExitCode)
	require.Contains(t, lines, actions.Line{Level: "WARNING", Message: "the action was stopped (SIGTERM)"})
	e.requirePodGone(t)
}

func TestPodThatCannotStartFailsTheRunSayingWhy(t *testing.T) {
	t.Parallel()
	e := newPodEnv(t)
	e.runtime = &actions.Pod{Client: e.client.Clientset, Image: "styrmin.local/no-such-runner:1", StartTimeout: time.Minute}
	started := time.Now()
	_, _, err := e.run(context.Background(), t, podModule, "ok", "2m", nil, nil)
	require.Error(t, err)
	require.Contains(t, err.Error(), "did not start")
	require.Contains(t, err.Error(), "styrmin.local/no-such-runner:1")
	require.Less(t, time.Since(started), 90*time.Second)
	e.requirePodGone(t)
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
	out, lines, err := e.run(context.Background(), t, attackModule, "attack", "2m", map[string]any{"host_file": hostFile, "api_server": e.client.Config.Host}, nil)
	require.NoError(t, err)
	require.False(t, out.Failed(), "%+v %v", out, lines)
	require.JSONEq(t, `{}`, string(out.Result), "what the action reached")
	require.Len(t, lines, 1)
	require.Regexp(t, `^kubernetes API: 40[13]$`, lines[0].Message, "a call without a token is refused")

	// Its service account may do nothing in the cluster's API.
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
	e.requirePodGone(t)
}
