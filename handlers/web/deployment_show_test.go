package web_test

import (
	"context"
	"net/http"
	"strconv"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/styrmin/styrmin/db"
	"github.com/styrmin/styrmin/deployment"
	"github.com/styrmin/styrmin/drivers"
	"github.com/styrmin/styrmin/drivers/bundled"
	"github.com/styrmin/styrmin/executor"
	"github.com/styrmin/styrmin/handlers/handlerstest"
)

// TestDeploymentPageDecodesItsDriverVersionOnce: a deployment page reads its
// driver version's spec from the catalogue's cache, not decoded per request,
// and keeps showing it after another version of the driver is imported.
func TestDeploymentPageDecodesItsDriverVersionOnce(t *testing.T) {
	t.Parallel()
	d := handlerstest.SetupDeployments(t)
	d.Install(t, handlerstest.PgInstall("orders"))
	cat := d.Catalog

	params := func() []string {
		rec := d.Request(d.Reader, http.MethodGet, "/deployments/orders", nil)
		require.Equal(t, http.StatusOK, rec.Code)
		doc := handlerstest.Parse(t, rec)
		require.NotContains(t, rec.Body.String(), handlerstest.PgSecret)
		return attrs(doc.Find(`[data-testid="param-value"]`), "data-name")
	}
	want := params()
	require.Contains(t, want, "database", "the parameters come from the driver's spec")
	decoded := cat.SpecCacheStats().Misses
	require.Equal(t, want, params())
	require.Equal(t, decoded, cat.SpecCacheStats().Misses, "the spec was decoded once")

	bundle, err := drivers.LoadBundle(t.Context(), bundled.Bundles(), "postgresql")
	require.NoError(t, err)
	bundle.Driver.Spec.Version = "1.0.1"
	_, err = cat.Import(context.Background(), bundle, "olga")
	require.NoError(t, err)
	require.Equal(t, want, params(), "another version changes nothing of this one")
	require.Equal(t, decoded, cat.SpecCacheStats().Misses)
}

// runWithSteps starts a task with steps steps, as its runner would, and ends
// it (and them) succeeded unless end is false.
func runWithSteps(t *testing.T, d handlerstest.DeployApp, taskID int64, steps int, end bool) {
	t.Helper()
	ctx := context.Background()
	q := db.New(d.Pool)
	_, err := q.StartTask(ctx, db.StartTaskParams{Runner: "test", ID: taskID})
	require.NoError(t, err)
	for i := range steps {
		st, err := q.InsertStep(ctx, db.InsertStepParams{TaskID: taskID, Kind: deployment.StepComponent, Title: "Scale step " + strconv.Itoa(i+1)})
		require.NoError(t, err)
		if end {
			require.NoError(t, q.EndStep(ctx, db.EndStepParams{ID: st.ID, Status: executor.StepSucceeded, Detail: []byte("{}")}))
		}
	}
	if end {
		ended, err := q.FinishTask(ctx, db.FinishTaskParams{ID: taskID, Status: executor.TaskSucceeded, Result: []byte("null")})
		require.NoError(t, err)
		require.Equal(t, executor.TaskSucceeded, ended.Status)
	}
}

// TestOldEndedTasksFoldTheirSteps: the newest tasks and those still running
// show their steps; older ended ones show a link that opens them, in place
// with htmx and as a page of their own without it.
func TestOldEndedTasksFoldTheirSteps(t *testing.T) {
	t.Parallel()
	d := handlerstest.SetupDeployments(t)
	ids := []int64{d.Install(t, handlerstest.PgInstall("orders")).TaskID}
	for range 4 {
		q, err := d.Service.Queue(context.Background(), &deployment.Stop{Name: "orders", By: "olga"})
		require.NoError(t, err)
		ids = append(ids, q.TaskID)
	}
	for i, id := range ids {
		runWithSteps(t, d, id, 2, i != 1) // the second task still runs
	}
	queued, err := d.Service.Queue(context.Background(), &deployment.Stop{Name: "orders", By: "olga"})
	require.NoError(t, err)

	rec := d.Request(d.Reader, http.MethodGet, "/deployments/orders", nil)
	require.Equal(t, http.StatusOK, rec.Code)
	tasks := handlerstest.Parse(t, rec).Find(`[data-testid="task"]`)
	id := func(i int) string { return strconv.FormatInt(ids[i], 10) }
	require.Equal(t, []string{strconv.FormatInt(queued.TaskID, 10), id(4), id(3), id(2), id(1), id(0)}, attrs(tasks, "data-task-id"))
	steps := func(i int) int { return tasks.Eq(i).Find(`[data-testid="step"]`).Length() }
	links := func(i int) []string { return attrs(tasks.Eq(i).Find(`[data-testid="task-steps-link"]`), "href") }
	require.Zero(t, steps(0), "a queued task has no steps yet")
	require.Empty(t, links(0))
	for _, i := range []int{1, 2} {
		require.Equal(t, 2, steps(i), "a task among the newest shows its steps")
		require.Empty(t, links(i))
	}
	require.Equal(t, 2, steps(4), "a running task shows its steps")
	path := "/deployments/orders/tasks/" + id(2) + "/steps"
	page := "/deployments/orders/tasks/" + id(2)
	for _, i := range []int{3, 5} {
		require.Zero(t, steps(i), "an older ended task folds its steps")
		require.Equal(t, "Show 2 steps", handlerstest.Text(tasks.Eq(i).Find(`[data-testid="task-steps-link"]`)))
	}
	require.Equal(t, []string{page}, links(3), "without JavaScript the link opens the task's page")
	require.Equal(t, path, tasks.Eq(3).Find(`[data-testid="task-steps-link"]`).AttrOr("hx-get", ""))
	require.NotContains(t, rec.Body.String(), handlerstest.PgSecret)

	rec = d.Request(d.Reader, http.MethodGet, path, nil, "HX-Request", "true")
	require.Equal(t, http.StatusOK, rec.Code)
	doc := handlerstest.Parse(t, rec)
	require.Zero(t, doc.Find("nav.nav").Length(), "htmx gets the steps alone")
	require.Equal(t, []string{"Scale step 1", "Scale step 2"}, handlerstest.Texts(doc.Find(`[data-testid="steps"] > [data-testid="step"] .step-title`)))
	require.Empty(t, rec.Header().Get("HX-Trigger"), "opening steps reloads nothing else")

	rec = d.Request(d.Reader, http.MethodGet, "/deployments/orders/tasks/"+id(0)+"/steps", nil)
	require.Equal(t, http.StatusOK, rec.Code)
	doc = handlerstest.Parse(t, rec)
	require.Equal(t, "Install #"+id(0)+" of orders", handlerstest.Text(doc.Find("h1")), "without htmx the task has a page")
	require.Equal(t, 2, doc.Find(`[data-testid="task"] [data-testid="step"]`).Length())
	require.NotContains(t, rec.Body.String(), handlerstest.PgSecret)

	for _, p := range []string{"/deployments/orders/tasks/999999/steps", "/deployments/orders/tasks/x/steps", "/deployments/nope/tasks/" + id(0) + "/steps"} {
		require.Equal(t, http.StatusNotFound, d.Request(d.Reader, http.MethodGet, p, nil).Code, p)
	}
}
