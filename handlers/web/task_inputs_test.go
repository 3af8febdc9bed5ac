package web_test

import (
	"context"
	"net/http"
	"strconv"
	"testing"

	"github.com/PuerkitoBio/goquery"
	"github.com/stretchr/testify/require"

	"github.com/styrmin/styrmin/deployment"
	"github.com/styrmin/styrmin/deployment/deploymenttest"
	"github.com/styrmin/styrmin/handlers/handlerstest"
)

// taskInputLines are the lines of the inputs summary of the task that the
// page /deployments/site/tasks/id shows (not of the tasks under its steps),
// "label: value" each.
func taskInputLines(t *testing.T, d handlerstest.DeployApp, id int64) []string {
	t.Helper()
	rec := d.Request(d.Reader, http.MethodGet, "/deployments/site/tasks/"+strconv.FormatInt(id, 10), nil)
	require.Equal(t, http.StatusOK, rec.Code, rec.Body.String())
	inputs := handlerstest.Parse(t, rec).Find(`[data-testid="task"]`).First().Find(`[data-testid="task-inputs"]`).First()
	return inputs.Find("div").Map(func(_ int, s *goquery.Selection) string {
		return handlerstest.Text(s.Find("dt")) + ": " + handlerstest.Text(s.Find("dd"))
	})
}

// TestATaskPageSummarisesTheTypedInputsOfEachKind: each kind's task shows
// what it was asked to do, read from its typed inputs; parameter and prompt
// values stay out.
func TestATaskPageSummarisesTheTypedInputsOfEachKind(t *testing.T) {
	t.Parallel()
	d := handlerstest.SetupDeployments(t)
	ids := deploymenttest.EveryKind(t, d.Service, d.Pool, "site")
	for kind, want := range map[string][]string{
		deployment.KindInstall:  {"Driver version: 1.0.0", "Application version: 1.27.0", "Namespace: site"},
		deployment.KindUpgrade:  {"Driver version: 1.0.0", "Application version: 1.27.0", "Changed parameters: replicas"},
		deployment.KindRollback: {"Revision: 1", "Driver version: 1.0.0", "Application version: 1.26.0"},
		deployment.KindStop:     {"Components: web"},
		deployment.KindStart:    {"Components: all"},
		deployment.KindAction:   {"Action: fetch_page"},
		deployment.KindDelete:   {},
	} {
		require.Equal(t, want, taskInputLines(t, d, ids[kind]), kind)
	}
}

// TestATaskPageShowsInputsStoredInAnotherShape: a task whose stored inputs
// do not all read as its kind's says so instead of a summary; a value under
// a key its kind does not have never shows.
func TestATaskPageShowsInputsStoredInAnotherShape(t *testing.T) {
	t.Parallel()
	d := handlerstest.SetupDeployments(t)
	d.Install(t, handlerstest.HelloInstall("site"))
	dep, err := d.Service.Get(context.Background(), "site")
	require.NoError(t, err)
	rollback := deploymenttest.InsertTask(t, d.Pool, dep.ID, deployment.KindRollback, `{"revision": "three", "driver_version": "1.0.0"}`)
	require.Equal(t, []string{"Inputs: The stored rollback inputs could not all be read: revision holds a JSON string."}, taskInputLines(t, d, rollback))

	stop := deploymenttest.InsertTask(t, d.Pool, dep.ID, deployment.KindStop, `{"components": ["web"], "password": "hunter2-never-shown"}`)
	require.Equal(t, []string{"Components: web"}, taskInputLines(t, d, stop))
	rec := d.Request(d.Reader, http.MethodGet, "/deployments/site", nil)
	require.Equal(t, http.StatusOK, rec.Code)
	require.NotContains(t, rec.Body.String(), "hunter2-never-shown")
}
