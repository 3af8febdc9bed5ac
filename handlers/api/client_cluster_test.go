package api_test

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/styrmin/styrmin/handlers/handlerstest"

	"github.com/stretchr/testify/require"

	"github.com/styrmin/styrmin/actions"
	"github.com/styrmin/styrmin/api"
	"github.com/styrmin/styrmin/auth"
	"github.com/styrmin/styrmin/devcluster/kubetest"
	"github.com/styrmin/styrmin/drivers/bundled/bundledtest"
	"github.com/styrmin/styrmin/executor"
	"github.com/styrmin/styrmin/executor/executortest"
)

// clientLiveTest is the Python client's live test, run against a real server
// by TestAPIOnTheCluster; it skips when its STYRMIN_TEST_* variables are unset.
const clientLiveTest = "sdk/python/tests/test_client_live.py"

// apiDriverVersion is the version of the action-less Hello Web copy that the
// API tests deploy, so that they wait for no smoke test (the bundled drivers'
// actions run in deployment/bundled_apps_cluster_test.go). It is the newest
// version, which the Python client's test installs.
const apiDriverVersion = "1.0.1"

// TestAPIOnTheCluster drives deployments through the REST API on the local
// Kubernetes with the real server, service and executor: an install, the
// review of an upgrade by a Helm dry run (its manifest diff), the upgrade and
// the deletion; then it runs the Python client's live test against the same
// server with a read-only, an operator and an admin token.
func TestAPIOnTheCluster(t *testing.T) {
	t.Parallel()
	env := handlerstest.NewClusterEnv(t)
	env.RemoveDeploymentsWhenDone(t)
	_, err := env.Catalog.ImportFS(context.Background(), bundledtest.Copy(t, "hello-web", apiDriverVersion, "", ""), ".", "test")
	require.NoError(t, err)
	tokens := map[auth.Role]string{}
	for _, role := range auth.Roles() {
		tokens[role] = env.APIToken(t, "api-"+strings.ReplaceAll(role.String(), "-", ""), role)
	}

	t.Run("upgrade reviewed by a dry run", func(t *testing.T) {
		op := apiCaller{url: env.URL, token: tokens[auth.Operator]}
		name := kubetest.UniqueName("api")
		op.waitTask(t, op.accepted(t, http.MethodPost, "/deployments", map[string]any{
			"driver": "hello-web", "driver_version": apiDriverVersion, "name": name,
			"parameters": map[string]any{"site_title": "Before", "replicas": 1},
		}))

		var review api.UpgradeReview
		op.Do(t, http.MethodPost, "/deployments/"+name+"/upgrade?dry_run=true", map[string]any{
			"parameters": map[string]any{"replicas": 3, "site_title": "After"},
		}, http.StatusOK, &review)
		require.Nil(t, review.DryRunError, "the dry run succeeds")
		diffs := map[string]api.ResourceDiff{}
		for _, r := range review.Resources {
			diffs[r.Kind+"/"+r.Name] = r
		}
		deploy := diffs["Deployment/"+name+"-hello-web"]
		require.Equal(t, api.ResourceDiffChange("changed"), deploy.Change, "resources: %+v", review.Resources)
		require.Contains(t, deploy.Diff, "-  replicas: 1")
		require.Contains(t, deploy.Diff, "+  replicas: 3")
		require.Contains(t, review.Changes, api.ParameterChange{Name: "site_title", Title: "Page title", Change: "changed", From: "Before", To: "After"})
		require.Len(t, op.deployment(t, name).Revisions, 1, "a dry run changes nothing")

		upgrade := op.waitTask(t, op.accepted(t, http.MethodPost, "/deployments/"+name+"/upgrade", map[string]any{
			"parameters": map[string]any{"replicas": 3},
		}))
		require.Equal(t, api.TaskKind("upgrade"), upgrade.Kind)
		require.Equal(t, []string{"replicas"}, inputsOf[api.UpgradeInputs](t, upgrade).Changed)
		d := op.deployment(t, name)
		require.Len(t, d.Revisions, 2)
		require.Equal(t, float64(3), d.Parameters["replicas"])

		deleted := op.waitTask(t, op.accepted(t, http.MethodDelete, "/deployments/"+name, nil))
		require.Equal(t, api.TaskKind("delete"), deleted.Kind)
	})

	t.Run("python client", func(t *testing.T) {
		runClientLiveTest(t, env.URL, tokens)
	})
}

// runClientLiveTest runs the Python client's live test against the server
// at url and fails when it fails, skips, or does not run.
func runClientLiveTest(t *testing.T, url string, tokens map[auth.Role]string) {
	python, err := actions.FindPython(context.Background())
	require.NoError(t, err)
	root, err := filepath.Abs(filepath.Join("..", ".."))
	require.NoError(t, err)
	sdkDir := filepath.Join(root, "sdk", "python")
	module := strings.TrimSuffix(strings.ReplaceAll(strings.TrimPrefix(clientLiveTest, "sdk/python/"), "/", "."), ".py")
	require.FileExists(t, filepath.Join(root, clientLiveTest))

	ctx, cancel := context.WithTimeout(context.Background(), 15*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, python, "-B", "-m", "unittest", "-v", module)
	cmd.Dir = sdkDir
	cmd.Env = append(os.Environ(),
		"PYTHONDONTWRITEBYTECODE=1",
		"STYRMIN_TEST_URL="+url,
		"STYRMIN_TEST_TOKEN_READONLY="+tokens[auth.ReadOnly],
		"STYRMIN_TEST_TOKEN_OPERATOR="+tokens[auth.Operator],
		"STYRMIN_TEST_TOKEN_ADMIN="+tokens[auth.Admin],
		"STYRMIN_TEST_DRIVER=hello-web",
	)
	out, err := cmd.CombinedOutput()
	t.Logf("python3 -m unittest -v %s:\n%s", module, out)
	require.NoError(t, err, "the Python client's live test failed (output above)")
	summary := string(out)
	require.Regexp(t, `(?m)^Ran [1-9]\d* tests?`, summary, "the live test ran")
	require.NotContains(t, summary, "skipped", "the live test skipped something: is the server's environment incomplete?")
}

// apiCaller calls the REST API at url with a token.
type apiCaller struct {
	url, token string
}

// Do sends a request with a JSON body (none when nil), requires the status
// and decodes the answer into out (when not nil).
func (c apiCaller) Do(t *testing.T, method, path string, body any, status int, out any) http.Header {
	t.Helper()
	var r io.Reader
	if body != nil {
		b, err := json.Marshal(body)
		require.NoError(t, err)
		r = bytes.NewReader(b)
	}
	req, err := http.NewRequest(method, c.url+"/api/v1"+path, r)
	require.NoError(t, err)
	req.Header.Set("Authorization", "Bearer "+c.token)
	if body != nil {
		req.Header.Set("Content-Type", "application/json")
	}
	res, err := http.DefaultClient.Do(req)
	require.NoError(t, err)
	defer res.Body.Close()
	b, err := io.ReadAll(res.Body)
	require.NoError(t, err)
	require.Equal(t, status, res.StatusCode, "%s %s: %s", method, path, b)
	if out != nil {
		require.NoError(t, json.Unmarshal(b, out), "%s %s: %s", method, path, b)
	}
	return res.Header
}

// accepted sends a change that answers 202 and returns its task's URL.
func (c apiCaller) accepted(t *testing.T, method, path string, body any) string {
	t.Helper()
	var out api.TaskAccepted
	h := c.Do(t, method, path, body, http.StatusAccepted, &out)
	require.Equal(t, out.Url, h.Get("Location"))
	return out.Url
}

// waitTask polls a task (its URL) until it ends and requires it to succeed.
func (c apiCaller) waitTask(t *testing.T, url string) api.Task {
	t.Helper()
	path := strings.TrimPrefix(url, "/api/v1")
	task := executortest.Wait(t, func(context.Context) (api.Task, error) {
		var task api.Task
		c.Do(t, http.MethodGet, path, nil, http.StatusOK, &task)
		return task, nil
	}, func(task api.Task) bool { return task.Ended })
	require.Equal(t, api.TaskStatus(executor.TaskSucceeded), task.Status, "%s task: %s\nsteps: %+v", task.Kind, task.Message, task.Steps)
	return task
}

// deployment reads a deployment through the API.
func (c apiCaller) deployment(t *testing.T, name string) api.Deployment {
	t.Helper()
	var d api.Deployment
	c.Do(t, http.MethodGet, "/deployments/"+name, nil, http.StatusOK, &d)
	return d
}
