package deploy_test

import (
	"bytes"
	"context"
	"encoding/json"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
	"helm.sh/helm/v3/pkg/chart/loader"
	appsv1 "k8s.io/api/apps/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/styrmin/styrmin/api/client"
	"github.com/styrmin/styrmin/devcluster/kubetest"
)

// TestANewUserInstallsTheReleaseAndDeploysFromTheCLI is issue 33's "done
// when", as a new user would go: `make release VERSION=0.1.0-test` (shared
// with the release's own test), then `helm install styrmin
// styrmin-0.1.0-test.tgz --set postgresql.enabled=true` (Helm's install
// action on the packaged chart), which runs the images buildah built, by the
// names the chart's appVersion gives them; then, with the release's CLI
// binary in a HOME of its own: `styrmin login URL --username admin` with the
// admin password from the chart's Secret, `deploy hello-web`, `tasks wait`
// (the install's post-install smoke test ran as a pod of the engine's
// action-runner image and succeeded) and `upgrade --yes --wait`, after which
// Hello Web answers with its new title.
func TestANewUserInstallsTheReleaseAndDeploysFromTheCLI(t *testing.T) {
	kubeconfig := kubetest.Kubeconfig(t)
	dir, _ := releaseArtefacts(t)
	ctx := context.Background()
	ch, err := loader.LoadFile(filepath.Join(dir, "styrmin-"+releaseVersion+".tgz"))
	require.NoError(t, err)
	r := chartReleaseIn(t, kubeconfig, kubetest.UniqueName("styrmin-e2e"), releaseRunner)
	name := kubetest.UniqueName("e2e") // the deployment, and its namespace
	r.installChart(t, ch, map[string]any{"postgresql": map[string]any{"enabled": true}}, name)
	r.waitReady(t, "styrmin-web", 2, releaseImage)
	r.waitReady(t, "styrmin-worker", 1, releaseImage)
	worker, err := r.kube.AppsV1().Deployments(r.ns).Get(ctx, "styrmin-worker", metav1.GetOptions{})
	require.NoError(t, err)
	require.Equal(t, releaseRunner, containerEnv(worker, "STYRMIN_ACTION_IMAGE"), "the worker's action pods run the engine's action-runner image")

	svc, err := r.kube.CoreV1().Services(r.ns).Get(ctx, "styrmin", metav1.GetOptions{})
	require.NoError(t, err)
	base := "http://" + svc.Spec.ClusterIP
	secret, err := r.kube.CoreV1().Secrets(r.ns).Get(ctx, "styrmin", metav1.GetOptions{})
	require.NoError(t, err)
	u := newTerminalUser(t, filepath.Join(dir, "styrmin-"+releaseVersion+"-linux-amd64"))

	out := u.ok(t, string(secret.Data["admin-password"])+"\n", "login", base, "--username", "admin")
	require.Contains(t, out, "Logged in to "+base+" as admin (admin)")
	config := filepath.Join(u.home, ".config", "styrmin", "config.json")
	info, err := os.Stat(config)
	require.NoError(t, err)
	require.Equal(t, os.FileMode(0o600), info.Mode().Perm())
	token := decode[struct{ Token string }](t, readFile(t, config)).Token
	require.True(t, strings.HasPrefix(token, "stp_"), "the login stored the token the server made")
	// The CLI has no command for the namespace policy: a new admin sets it
	// on the Namespaces page, here through the REST API with the login's token.
	a := api{base: base, token: token}
	a.call(t, http.MethodPut, "/namespace-policy", map[string]any{"allowed": []string{name}, "create_namespaces": true}, nil)

	accepted := decode[client.TaskAccepted](t, u.ok(t, "", "deploy", "hello-web", name, "--set", "site_title=E2E shop", "-o", "json"))
	id := strconv.FormatInt(accepted.Task.Id, 10)
	require.Contains(t, u.ok(t, "", "tasks", "wait", id), "Task "+id+" (install of "+name+") succeeded")
	install := decode[client.Task](t, u.ok(t, "", "tasks", "get", id, "-o", "json"))
	smokeTests := 0
	for _, s := range install.Steps {
		if s.Action != nil && *s.Action == "smoke_test" {
			smokeTests++
			require.Equal(t, "succeeded", s.Status, "the smoke test ran as a pod of the engine's action-runner image: %+v", s)
		}
	}
	require.Equal(t, 1, smokeTests, "the install's post-install hook step: %+v", install.Steps)

	out = u.ok(t, "", "upgrade", name, "--set", "site_title=E2E shop upgraded", "--yes", "--wait")
	require.Contains(t, out, "~ site_title: E2E shop -> E2E shop upgraded", "the review is shown")
	require.Regexp(t, `Task \d+ \(upgrade of `+name+`\) succeeded`, out)
	hello, err := r.kube.CoreV1().Services(name).Get(ctx, name+"-hello-web", metav1.GetOptions{})
	require.NoError(t, err)
	r.poll(t, "Hello Web's page answers with the upgraded title", func() bool {
		return strings.Contains(hostGet("http://"+hello.Spec.ClusterIP+"/"), "<title>E2E shop upgraded</title>")
	})
}

// containerEnv is the value of the environment variable name in the first
// container of d's pods ("" when unset).
func containerEnv(d *appsv1.Deployment, name string) string {
	for _, e := range d.Spec.Template.Spec.Containers[0].Env {
		if e.Name == name {
			return e.Value
		}
	}
	return ""
}

// terminalUser runs a CLI binary as someone at a terminal would: a HOME
// of their own (its config folder holds the login), no STYRMIN_ variables.
type terminalUser struct {
	bin, home string
}

func newTerminalUser(t *testing.T, bin string) terminalUser {
	return terminalUser{bin: bin, home: t.TempDir()}
}

// ok runs the binary with args and stdin as its input, requires exit code
// 0 and returns its output.
func (u terminalUser) ok(t *testing.T, stdin string, args ...string) string {
	t.Helper()
	cmd := exec.Command(u.bin, args...)
	cmd.Env = []string{"HOME=" + u.home, "PATH=/usr/bin:/bin"}
	cmd.Stdin = strings.NewReader(stdin)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	require.NoError(t, err, "styrmin %s: %s%s", strings.Join(args, " "), out, stderr.String())
	return string(out)
}

// decode is the JSON text s as a T.
func decode[T any](t *testing.T, s string) T {
	t.Helper()
	var v T
	require.NoError(t, json.Unmarshal([]byte(s), &v), s)
	return v
}

// readFile is the text of the file at path.
func readFile(t *testing.T, path string) string {
	t.Helper()
	data, err := os.ReadFile(path)
	require.NoError(t, err)
	return string(data)
}
