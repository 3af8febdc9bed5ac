package web_test

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/styrmin/styrmin/handlers/handlerstest"

	"github.com/chromedp/chromedp"
	"github.com/stretchr/testify/require"

	"github.com/styrmin/styrmin/actions"
	"github.com/styrmin/styrmin/auth"
	"github.com/styrmin/styrmin/deployment"
	"github.com/styrmin/styrmin/devcluster/kubetest"
	"github.com/styrmin/styrmin/drivers/bundled/bundledtest"
	"github.com/styrmin/styrmin/executor"
	"github.com/styrmin/styrmin/redact"
	"github.com/styrmin/styrmin/views"
)

// failingUpgradeActions give a Hello Web copy one blocking pre-upgrade
// action whose Job prints many lines, one of them a password, and fails.
const failingUpgradeActions = `
- {name: prepare, title: Prepare the data, hook: pre-upgrade, mode: blocking, function: "actions:prepare", timeout: 3m}
`

const failingUpgradeActionsPy = `
import styrmin


def prepare():
    styrmin.log.error("migration check failed for password=s3cret-passw0rd")
    styrmin.execute_commands(
        ["i=0; while [ $i -lt 500 ]; do i=$((i+1)); echo checked row $i password=s3cret-passw0rd; done; exit 3"],
        image="busybox",
    )
`

// readFailedStep is a read-only user's script: it prints the error and Job
// tail of the failed hook step of a task (argv: URL, token, task id).
const readFailedStep = `
import json, sys
import styrmin

client = styrmin.Client(sys.argv[1], sys.argv[2])
task = client.task(int(sys.argv[3]))
step = task.failed_steps()[0]
print(json.dumps({"error": step.error, "jobTail": step.job_tail, "lines": step.job_tail_lines}))
`

// TestBrowserReadOnlyUserSeesAFailedUpgrade fails an upgrade for real on the
// local cluster (its blocking pre-upgrade action's Job exits 3), then a
// read-only user opens the task in Chromium: the hook step's error and the
// Job's output tail are there, the password in them redacted, and nothing
// was upgraded. A read-only user's script reads the same through the API.
func TestBrowserReadOnlyUserSeesAFailedUpgrade(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	env := handlerstest.NewClusterEnvWithActions(t)
	_, err := env.Catalog.ImportFS(ctx, bundledtest.Copy(t, "hello-web", "1.0.2", failingUpgradeActions, failingUpgradeActionsPy), ".", "test")
	require.NoError(t, err)
	_, err = env.Users.Create(ctx, auth.NewUser{Username: "reader", Password: handlerstest.CatalogPassword, Role: auth.ReadOnly})
	require.NoError(t, err)
	name := kubetest.UniqueName("failed")
	env.RemoveWhenDone(t, name)

	install, err := env.Service.Queue(ctx, &deployment.Install{
		Driver: "hello-web", DriverVersion: "1.0.2", Name: name, AppVersion: "1.27.0",
		Parameters: deployment.FormInput{"site_title": "Shop", "replicas": "2"}, By: "test",
	})
	require.NoError(t, err)
	require.Equal(t, executor.TaskSucceeded, env.WaitEnded(t, name, install.TaskID).Status)
	review, err := env.Service.Review(ctx, &deployment.Upgrade{Name: name, Parameters: deployment.FormInput{"replicas": "3"}, By: "test"})
	require.NoError(t, err)
	upgrade, err := env.Service.Queue(ctx, deployment.ConfirmUpgrade{Token: review.Token, By: "test"})
	require.NoError(t, err)
	failed := env.WaitEnded(t, name, upgrade.TaskID)
	require.Equal(t, executor.TaskFailed, failed.Status, "a blocking pre-upgrade action's failure fails the upgrade")

	browser := handlerstest.NewBrowser(t)
	handlerstest.Step(t, browser, "sign in as the read-only user and open the failed task",
		handlerstest.SignIn(env.URL+"/deployments/"+name+"/tasks/"+strconv.FormatInt(upgrade.TaskID, 10), "reader", handlerstest.CatalogPassword),
		chromedp.WaitVisible(chromedp.CSS(`[data-testid="step"][data-kind="hook"]`)),
	)
	hookStep := `document.querySelector('[data-testid="step"][data-kind="hook"]')`
	require.Equal(t, views.StatusFailed, handlerstest.Eval[string](t, browser, hookStep+`.dataset.status`))
	stepError := handlerstest.Eval[string](t, browser, hookStep+`.querySelector('[data-testid="step-error"]').textContent`)
	require.Contains(t, stepError, "Action prepare failed")
	require.Contains(t, stepError, "password="+redact.Mark, "the first ERROR line is the error, redacted")

	handlerstest.Step(t, browser, "open the Job's output", chromedp.Click(chromedp.CSS(`[data-testid="step-job-tail"] summary`)))
	tail := handlerstest.Eval[string](t, browser, hookStep+`.querySelector('[data-testid="step-job-tail"] pre').textContent`)
	require.True(t, strings.HasSuffix(strings.TrimSpace(tail), "checked row 500 password="+redact.Mark), "the tail ends with the Job's last line, redacted: %q", tail[max(0, len(tail)-80):])
	require.NotContains(t, tail, "checked row 300 ", "only the last 200 lines are kept")
	require.Equal(t, "200 lines", strings.TrimSpace(handlerstest.Eval[string](t, browser, hookStep+`.querySelector('[data-testid="job-tail-lines"]').textContent`)))
	require.True(t, handlerstest.Eval[bool](t, browser, hookStep+`.querySelector('[data-testid="step-job-tail"]').open`), "the tail opens")
	require.NotContains(t, handlerstest.Eval[string](t, browser, `document.documentElement.outerHTML`), "s3cret-passw0rd", "the password is nowhere in the page")

	readerToken := env.APIToken(t, "reading-script", auth.ReadOnly)
	var read struct {
		Error, JobTail string
		Lines          int
	}
	require.NoError(t, json.Unmarshal(runPython(t, readFailedStep, env.URL, readerToken, strconv.FormatInt(upgrade.TaskID, 10)), &read))
	require.Equal(t, stepError, read.Error, "a read-only script reads the hook step's error")
	require.Equal(t, 200, read.Lines)
	require.Equal(t, strings.TrimSpace(tail), strings.TrimSpace(read.JobTail), "and the same Job tail")

	d, err := env.Service.Get(ctx, name)
	require.NoError(t, err)
	require.Equal(t, float64(2), d.Parameters["replicas"], "nothing was upgraded")
	history, err := env.Cluster.Releases.History(ctx, name, name)
	require.NoError(t, err)
	require.Len(t, history, 1, "the Helm release is still at its first revision")
}

// runPython runs a Python script with the styrmin package of this checkout
// and returns its standard output.
func runPython(t *testing.T, script string, args ...string) []byte {
	t.Helper()
	python, err := actions.FindPython(context.Background())
	require.NoError(t, err)
	sdkDir, err := filepath.Abs(filepath.Join("..", "..", "sdk", "python"))
	require.NoError(t, err)
	cmd := exec.Command(python, append([]string{"-B", "-c", script}, args...)...)
	cmd.Env = append(os.Environ(), "PYTHONPATH="+sdkDir)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	require.NoError(t, err, "python: %s", stderr.String())
	return out
}
