package web_test

import (
	"context"
	"fmt"
	"net/http"
	"net/url"
	"strconv"
	"testing"

	"github.com/styrmin/styrmin/handlers/handlerstest"

	"github.com/PuerkitoBio/goquery"
	"github.com/stretchr/testify/require"

	"github.com/styrmin/styrmin/deployment"
	"github.com/styrmin/styrmin/deployment/deploymenttest"
	"github.com/styrmin/styrmin/executor"
	"github.com/styrmin/styrmin/views"
)

// pgForm is a valid install form of the bundled PostgreSQL driver.
func pgForm(name string) url.Values {
	return url.Values{
		"name": {name}, "namespace": {""}, "driver_version": {"1.2.0"}, "app_version": {"16.4.0"},
		"param.database": {"shop"}, "param.username": {"postgres"}, "param.password": {handlerstest.PgSecret},
		"param.storage_gib": {"8"}, "param.max_connections": {"100"}, "param.log_statement": {"ddl"},
	}
}

// fieldError returns the error shown next to the field with that id.
func fieldError(doc *goquery.Document, id string) string {
	return handlerstest.Text(doc.Find("#" + id).Closest(".field").Find(`[data-testid="field-error"]`))
}

func TestInstallFormIsBuiltFromTheDriversParameters(t *testing.T) {
	t.Parallel()
	d := handlerstest.SetupDeployments(t)
	rec := d.Request(d.Operator, http.MethodGet, "/drivers/postgresql/deploy?version=1.2.0", nil)
	require.Equal(t, http.StatusOK, rec.Code, rec.Body.String())
	doc := handlerstest.Parse(t, rec)
	require.Equal(t, "16.4.0", doc.Find("#deploy-app-version").AttrOr("value", ""), "the chart's appVersion is the default")
	require.Equal(t, ">=14.0.0, <18.0.0", handlerstest.Text(doc.Find(`[data-testid="app-version-constraint"]`)))
	require.Equal(t, "app", doc.Find("#param-database").AttrOr("value", ""), "defaults are filled in")
	require.Equal(t, "password", doc.Find("#param-password").AttrOr("type", ""), "a secret is a password input")
	require.Equal(t, 1, doc.Find("select#param-log_statement").Length(), "an enum is a select")
	require.Equal(t, 1, doc.Find("textarea#param-init_sql").Length(), "a text is a textarea")
	require.Equal(t, "checkbox", doc.Find("#param-log_connections").AttrOr("type", ""))
	require.Contains(t, handlerstest.Texts(doc.Find("legend")), "Database", "groups are fieldsets")
	require.Zero(t, doc.Find(".locked").Length(), "nothing is locked on an install")
}

func TestInstallFormReloadForAnotherVersionKeepsEnteredValuesButNoSecret(t *testing.T) {
	t.Parallel()
	d := handlerstest.SetupDeployments(t)
	q := url.Values{"driver_version": {"1.2.0"}, "name": {"orders"}, "namespace": {"data"}, "app_version": {"16.2.0"},
		"param.database": {"mine"}, "param.password": {handlerstest.PgSecret}}
	rec := d.Request(d.Operator, http.MethodGet, "/drivers/postgresql/deploy?"+q.Encode(), nil, "HX-Request", "true")
	require.Equal(t, http.StatusOK, rec.Code)
	doc := handlerstest.Parse(t, rec)
	require.Equal(t, "orders", doc.Find("#deploy-name").AttrOr("value", ""))
	require.Equal(t, "data", doc.Find("#deploy-namespace").AttrOr("value", ""))
	require.Equal(t, "16.2.0", doc.Find("#deploy-app-version").AttrOr("value", ""))
	require.Equal(t, "mine", doc.Find("#param-database").AttrOr("value", ""))
	require.Equal(t, "postgres", doc.Find("#param-username").AttrOr("value", ""), "a field not sent keeps its default")
	require.NotContains(t, rec.Body.String(), handlerstest.PgSecret)
}

func TestInstallRefusesBadValuesNextToTheirFields(t *testing.T) {
	t.Parallel()
	d := handlerstest.SetupDeployments(t)
	for _, tc := range []struct {
		name    string
		change  url.Values
		fieldID string
		message string
	}{
		{"bad name", url.Values{"name": {"Bad_Name"}}, "deploy-name", "the name must be lower-case letters"},
		{"long name", url.Values{"name": {"a23456789-123456789-123456789-123456789-1234567890"}}, "deploy-name", "at most 49 are allowed"},
		{"unsupported app version", url.Values{"app_version": {"18.0.0"}}, "deploy-app-version", "is not supported by driver postgresql 1.2.0"},
		{"bad parameter", url.Values{"param.storage_gib": {"0"}}, "param-storage_gib", "0 is less than the minimum 1"},
		{"unknown driver version", url.Values{"driver_version": {"9.9.9"}}, "deploy-driver-version", `has no version "9.9.9"`},
		{"reserved namespace", url.Values{"namespace": {"kube-system"}}, "deploy-namespace", "namespace kube-system is reserved for Kubernetes or Styrmin itself; deploy elsewhere, or ask an admin to allow kube-system by its exact name on the Namespaces page"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			form := pgForm("orders")
			for k, v := range tc.change {
				form[k] = v
			}
			rec := d.Request(d.Operator, http.MethodPost, "/drivers/postgresql/deploy", form)
			require.Equal(t, http.StatusUnprocessableEntity, rec.Code)
			doc := handlerstest.Parse(t, rec)
			require.Contains(t, fieldError(doc, tc.fieldID), tc.message)
			require.Contains(t, handlerstest.Text(doc.Find(`[data-testid="error-summary"]`)), tc.message)
			require.Equal(t, form.Get("name"), doc.Find("#deploy-name").AttrOr("value", ""), "the entered name is kept")
			require.Equal(t, form.Get("app_version"), doc.Find("#deploy-app-version").AttrOr("value", ""))
			require.Equal(t, "shop", doc.Find("#param-database").AttrOr("value", ""), "entered parameters are kept")
			require.Equal(t, form.Get("param.storage_gib"), doc.Find("#param-storage_gib").AttrOr("value", ""))
			require.NotContains(t, rec.Body.String(), handlerstest.PgSecret, "a secret is never sent back")
		})
	}
	_, err := d.Service.Get(context.Background(), "orders")
	require.Error(t, err, "nothing was installed")
}

func TestInstallQueuesTheTaskAndOpensTheDeploymentPage(t *testing.T) {
	t.Parallel()
	d := handlerstest.SetupDeployments(t)
	rec := d.Request(d.Operator, http.MethodPost, "/drivers/postgresql/deploy", pgForm("orders"))
	require.Equal(t, http.StatusSeeOther, rec.Code, rec.Body.String())
	require.Equal(t, "/deployments/orders", rec.Header().Get("Location"))

	tasks := d.TasksOf(t, "orders")
	require.Len(t, tasks, 1)
	require.Equal(t, deployment.KindInstall, tasks[0].Kind)
	require.Equal(t, executor.TaskQueued, tasks[0].Status)
	require.Equal(t, "olga", tasks[0].By)

	rec = d.Request(d.Operator.Follow(rec), http.MethodGet, "/deployments/orders", nil)
	require.Equal(t, http.StatusOK, rec.Code)
	doc := handlerstest.Parse(t, rec)
	require.Contains(t, handlerstest.Text(doc.Find(`[data-testid="flash-success"]`)), "queued for install")
	require.Equal(t, views.StatusPending, handlerstest.Text(doc.Find(`[data-testid="deployment-status"]`)))
	task := doc.Find(`[data-testid="task"]`)
	require.Equal(t, views.StatusQueued, task.AttrOr("data-status", ""))
	require.Equal(t, "every 1s", task.AttrOr("hx-trigger", ""), "a queued task polls")
	require.Contains(t, handlerstest.Text(doc.Find(`[data-testid="param-value"][data-name="password"]`)), "(set)")
	require.NotContains(t, rec.Body.String(), handlerstest.PgSecret)

	rec = d.Request(d.Operator, http.MethodPost, "/drivers/postgresql/deploy", pgForm("orders"))
	require.Equal(t, http.StatusUnprocessableEntity, rec.Code, "the name is taken")
	require.Contains(t, fieldError(handlerstest.Parse(t, rec), "deploy-name"), "a deployment named orders exists")
}

func TestUpgradeGoesThroughAReviewBeforeItIsQueued(t *testing.T) {
	t.Parallel()
	d := handlerstest.SetupDeployments(t)
	d.Install(t, handlerstest.HelloInstall("site"))

	rec := d.Request(d.Operator, http.MethodGet, "/deployments/site/upgrade", nil)
	require.Equal(t, http.StatusOK, rec.Code, rec.Body.String())
	doc := handlerstest.Parse(t, rec)
	require.Equal(t, "2", doc.Find("#param-replicas").AttrOr("value", ""), "the form starts from the current values")
	require.Equal(t, "Shop", doc.Find("#param-site_title").AttrOr("value", ""))

	form := url.Values{"driver_version": {"1.0.0"}, "app_version": {"1.27.1"}, "param.site_title": {"Shop"},
		"param.replicas": {"3"}, "param.theme": {"ocean"}, "param.memory_mib": {"64"}}
	rec = d.Request(d.Operator, http.MethodPost, "/deployments/site/upgrade/review", form)
	require.Equal(t, http.StatusOK, rec.Code, rec.Body.String())
	doc = handlerstest.Parse(t, rec)
	change := doc.Find(`[data-testid="param-change"][data-name="replicas"]`)
	require.Equal(t, "changed", change.AttrOr("data-kind", ""))
	require.Contains(t, handlerstest.Text(change), "2")
	require.Contains(t, handlerstest.Text(change), "3")
	require.Contains(t, handlerstest.Text(doc.Find(`[data-testid="review-app-version"]`)), "1.27.1")
	require.Contains(t, handlerstest.Text(doc.Find(`[data-testid="dry-run-error"]`)), "No Kubernetes cluster is configured", "without a cluster there is no manifest diff")
	token := doc.Find(`input[name="review"]`).AttrOr("value", "")
	require.NotEmpty(t, token)

	rec = d.Request(d.Operator, http.MethodPost, "/deployments/site/upgrade/edit", url.Values{"review": {token}})
	require.Equal(t, http.StatusOK, rec.Code)
	require.Equal(t, "3", handlerstest.Parse(t, rec).Find("#param-replicas").AttrOr("value", ""), "Back keeps the reviewed values")

	rec = d.Request(d.Operator, http.MethodPost, "/deployments/site/upgrade", url.Values{"review": {token}})
	require.Equal(t, http.StatusSeeOther, rec.Code, rec.Body.String())
	require.Equal(t, "/deployments/site", rec.Header().Get("Location"))
	tasks := d.TasksOf(t, "site")
	require.Equal(t, deployment.KindUpgrade, tasks[0].Kind)
	require.Equal(t, []string{"replicas"}, deploymenttest.Inputs[*deployment.UpgradeInputs](t, &tasks[0]).Changed)

	rec = d.Request(d.Operator, http.MethodPost, "/deployments/site/upgrade", url.Values{"review": {token + "x"}})
	require.Equal(t, http.StatusBadRequest, rec.Code, "a tampered review is refused")
}

func TestUpgradeReviewRefusesBadValuesAndACraftedChangeOfAnImmutableParameter(t *testing.T) {
	t.Parallel()
	d := handlerstest.SetupDeployments(t)
	d.Install(t, handlerstest.PgInstall("orders"))

	rec := d.Request(d.Operator, http.MethodGet, "/deployments/orders/upgrade", nil)
	require.Equal(t, http.StatusOK, rec.Code)
	doc := handlerstest.Parse(t, rec)
	require.Equal(t, "", doc.Find("#param-database").AttrOr("readonly", "missing"), "an immutable parameter is locked")
	require.Contains(t, doc.Find("#param-password").AttrOr("placeholder", ""), "leave blank to keep")
	require.NotContains(t, rec.Body.String(), handlerstest.PgSecret)

	form := url.Values{"driver_version": {"1.2.0"}, "app_version": {"17.0.0"}, "param.database": {"stolen"},
		"param.username": {"postgres"}, "param.max_connections": {"5"}, "param.password": {handlerstest.PgSecret + "-new"}}
	rec = d.Request(d.Operator, http.MethodPost, "/deployments/orders/upgrade/review", form)
	require.Equal(t, http.StatusUnprocessableEntity, rec.Code, rec.Body.String())
	doc = handlerstest.Parse(t, rec)
	require.Equal(t, "Database name cannot change after install; it stays app", fieldError(doc, "param-database"))
	require.Contains(t, fieldError(doc, "param-max_connections"), "less than the minimum 10")
	require.Contains(t, fieldError(doc, "param-password"), "cannot change after install")
	require.Equal(t, "5", doc.Find("#param-max_connections").AttrOr("value", ""), "entered values are kept")
	require.Equal(t, "17.0.0", doc.Find("#deploy-app-version").AttrOr("value", ""))
	require.NotContains(t, rec.Body.String(), handlerstest.PgSecret)
	require.Len(t, d.TasksOf(t, "orders"), 1, "nothing was queued")
}

func TestDeleteAsksForTheName(t *testing.T) {
	t.Parallel()
	d := handlerstest.SetupDeployments(t)
	d.Install(t, handlerstest.HelloInstall("site"))
	rec := d.Request(d.Operator, http.MethodGet, "/deployments/site/delete", nil)
	require.Equal(t, http.StatusOK, rec.Code)

	rec = d.Request(d.Operator, http.MethodPost, "/deployments/site/delete", url.Values{"confirm": {"sight"}})
	require.Equal(t, http.StatusUnprocessableEntity, rec.Code)
	doc := handlerstest.Parse(t, rec)
	require.Equal(t, "type site to confirm", fieldError(doc, "delete-confirm"))
	require.Equal(t, "sight", doc.Find("#delete-confirm").AttrOr("value", ""))
	require.Len(t, d.TasksOf(t, "site"), 1)

	rec = d.Request(d.Operator, http.MethodPost, "/deployments/site/delete", url.Values{"confirm": {"site"}})
	require.Equal(t, http.StatusSeeOther, rec.Code)
	require.Equal(t, deployment.KindDelete, d.TasksOf(t, "site")[0].Kind)
}

func TestStopStartRollbackAndCancelQueueTasks(t *testing.T) {
	t.Parallel()
	d := handlerstest.SetupDeployments(t)
	d.Install(t, handlerstest.HelloInstall("site"))

	rec := d.Request(d.Operator, http.MethodPost, "/deployments/site/stop", url.Values{})
	require.Equal(t, http.StatusSeeOther, rec.Code, rec.Body.String())
	stop := d.TasksOf(t, "site")[0]
	require.Equal(t, deployment.KindStop, stop.Kind)
	require.Equal(t, &deployment.ComponentsInputs{}, stop.Inputs, "no component means all")

	rec = d.Request(d.Operator, http.MethodPost, "/deployments/site/start", url.Values{"component": {"web"}})
	require.Equal(t, http.StatusSeeOther, rec.Code)
	start := d.TasksOf(t, "site")[0]
	require.Equal(t, deployment.KindStart, start.Kind)
	require.Equal(t, &deployment.ComponentsInputs{Components: []string{"web"}}, start.Inputs)

	rec = d.Request(d.Operator, http.MethodPost, "/deployments/site/stop", url.Values{"component": {"db"}})
	require.Equal(t, http.StatusSeeOther, rec.Code, "a refused change goes back to the page")
	page := d.Request(d.Operator.Follow(rec), http.MethodGet, "/deployments/site", nil)
	require.Contains(t, handlerstest.Text(handlerstest.Parse(t, page).Find(`[data-testid="flash-error"]`)), `has no component "db"`)

	rec = d.Request(d.Operator, http.MethodPost, "/deployments/site/rollback", url.Values{"revision": {"3"}})
	require.Equal(t, http.StatusSeeOther, rec.Code)
	page = d.Request(d.Operator.Follow(rec), http.MethodGet, "/deployments/site", nil)
	require.Contains(t, handlerstest.Text(handlerstest.Parse(t, page).Find(`[data-testid="flash-error"]`)), "has no revision 3")
	rec = d.Request(d.Operator, http.MethodPost, "/deployments/site/rollback", url.Values{"revision": {"latest"}})
	require.Equal(t, http.StatusSeeOther, rec.Code)
	page = d.Request(d.Operator.Follow(rec), http.MethodGet, "/deployments/site", nil)
	require.Contains(t, handlerstest.Text(handlerstest.Parse(t, page).Find(`[data-testid="flash-error"]`)), "revision: give the revision to roll back to, 1 or more",
		"the service refuses a revision that is none, as the API's")
	require.Len(t, d.TasksOf(t, "site"), 3, "refused changes queue nothing")

	rec = d.Request(d.Operator, http.MethodPost, "/deployments/site/tasks/"+strconv.FormatInt(start.ID, 10)+"/cancel", url.Values{})
	require.Equal(t, http.StatusSeeOther, rec.Code)
	task, err := d.Service.Task(context.Background(), "site", start.ID)
	require.NoError(t, err)
	require.Equal(t, executor.TaskCanceled, task.Status)
	require.Equal(t, "Cancelled by olga before it started.", task.Message)
}

func TestTaskFragmentPollsUntilTheTaskEnds(t *testing.T) {
	t.Parallel()
	d := handlerstest.SetupDeployments(t)
	d.Install(t, handlerstest.HelloInstall("site"))
	stop, err := d.Service.Queue(context.Background(), &deployment.Stop{Name: "site", By: "olga"})
	require.NoError(t, err)
	path := "/deployments/site/tasks/" + strconv.FormatInt(stop.TaskID, 10)

	rec := d.Request(d.Reader, http.MethodGet, path, nil, "HX-Request", "true")
	require.Equal(t, http.StatusOK, rec.Code)
	task := handlerstest.Parse(t, rec).Find(`[data-testid="task"]`)
	require.Equal(t, "every 1s", task.AttrOr("hx-trigger", ""))
	require.Equal(t, path, task.AttrOr("hx-get", ""))
	require.Contains(t, handlerstest.Text(task.Find(`[data-testid="task-status"]`)), "queued · position 2 in the queue", "the install waits before it")
	require.Empty(t, rec.Header().Get("HX-Trigger"))
	require.Zero(t, task.Find(`[data-testid="task-cancel"]`).Length(), "a reader gets no cancel button")

	rec = d.Request(d.Operator, http.MethodGet, path, nil, "HX-Request", "true")
	require.Equal(t, 1, handlerstest.Parse(t, rec).Find(`[data-testid="task-cancel"]`).Length())

	require.NoError(t, d.Service.CancelTask(context.Background(), "site", stop.TaskID, "olga"))
	rec = d.Request(d.Reader, http.MethodGet, path, nil, "HX-Request", "true")
	task = handlerstest.Parse(t, rec).Find(`[data-testid="task"]`)
	require.Equal(t, views.StatusCanceled, task.AttrOr("data-status", ""))
	_, polls := task.Attr("hx-trigger")
	require.False(t, polls, "an ended task stops polling")
	require.Equal(t, views.TaskEndedEvent, rec.Header().Get("HX-Trigger"), "the page header reloads")

	rec = d.Request(d.Reader, http.MethodGet, path, nil)
	require.Equal(t, http.StatusOK, rec.Code, "outside htmx the task is a page of its own")
	doc := handlerstest.Parse(t, rec)
	require.Equal(t, "Stop components #"+strconv.FormatInt(stop.TaskID, 10)+" of site", handlerstest.Text(doc.Find("h1")))
	require.Equal(t, []string{strconv.FormatInt(stop.TaskID, 10)}, doc.Find(`[data-testid="task"]`).Map(func(_ int, s *goquery.Selection) string { return s.AttrOr("data-task-id", "") }))
}

func TestUnknownDeploymentsAndTasksAreNotFound(t *testing.T) {
	t.Parallel()
	d := handlerstest.SetupDeployments(t)
	d.Install(t, handlerstest.HelloInstall("site"))
	other := d.Install(t, handlerstest.HelloInstall("other"))
	for _, path := range []string{
		"/deployments/nope", "/deployments/nope/upgrade", "/deployments/nope/delete", "/deployments/nope/tasks",
		"/deployments/site/tasks/999999", "/deployments/site/tasks/" + strconv.FormatInt(other.TaskID, 10), "/deployments/site/tasks/x",
		"/drivers/nope/deploy",
	} {
		rec := d.Request(d.Operator, http.MethodGet, path, nil)
		require.Equal(t, http.StatusNotFound, rec.Code, path)
	}
	rec := d.Request(d.Operator, http.MethodPost, "/deployments/nope/stop", url.Values{})
	require.Equal(t, http.StatusNotFound, rec.Code)
}

func TestReadOnlyUserSeesEverythingAndCanChangeNothing(t *testing.T) {
	t.Parallel()
	d := handlerstest.SetupDeployments(t)
	d.Install(t, handlerstest.PgInstall("orders"))
	_, err := d.Service.Queue(context.Background(), &deployment.Stop{Name: "orders", By: "olga"})
	require.NoError(t, err)

	rec := d.Request(d.Reader, http.MethodGet, "/deployments/orders", nil)
	require.Equal(t, http.StatusOK, rec.Code)
	doc := handlerstest.Parse(t, rec)
	require.Equal(t, "orders", handlerstest.Text(doc.Find(`[data-testid="deployment-name"]`)))
	require.Equal(t, 2, doc.Find(`[data-testid="task"]`).Length(), "every task is shown")
	require.Contains(t, handlerstest.Text(doc.Find(`[data-testid="cluster-error"]`)), "No Kubernetes cluster is configured")
	require.Equal(t, "app", handlerstest.Text(doc.Find(`[data-testid="param-value"][data-name="database"] code.value`)))
	require.Zero(t, doc.Find(`[data-testid="deployment-actions"], [data-testid="task-cancel"], [data-testid="component-stop"], [data-testid="rollback"]`).Length(),
		"a reader gets no button")
	require.NotContains(t, rec.Body.String(), handlerstest.PgSecret)

	rec = d.Request(d.Reader, http.MethodGet, "/deployments", nil)
	require.Equal(t, http.StatusOK, rec.Code)
	doc = handlerstest.Parse(t, rec)
	require.Equal(t, []string{"orders"}, handlerstest.Texts(doc.Find(`[data-testid="deployment-link"]`)))
	require.Zero(t, doc.Find(`[data-testid="new-deployment"]`).Length())
	rec = d.Request(d.Reader, http.MethodGet, "/drivers/postgresql", nil)
	require.Zero(t, handlerstest.Parse(t, rec).Find(`[data-testid="deploy-link"]`).Length())

	for _, r := range []struct{ method, path string }{
		{http.MethodPost, "/deployments/orders/stop"},
		{http.MethodPost, "/deployments/orders/delete"},
		{http.MethodPost, "/drivers/postgresql/deploy"},
		{http.MethodGet, "/deployments/orders/upgrade"},
	} {
		var form url.Values
		if r.method == http.MethodPost {
			form = url.Values{"confirm": {"orders"}}
		}
		rec := d.Request(d.Reader, r.method, r.path, form)
		require.Equal(t, http.StatusForbidden, rec.Code, "%s %s", r.method, r.path)
	}
	require.Len(t, d.TasksOf(t, "orders"), 2)

	rec = d.Request(d.Operator, http.MethodGet, "/deployments/orders", nil)
	doc = handlerstest.Parse(t, rec)
	require.Equal(t, 1, doc.Find(`[data-testid="deployment-actions"]`).Length(), "an operator gets the buttons")
}

func TestOlderTasksLoadPageByPage(t *testing.T) {
	t.Parallel()
	d := handlerstest.SetupDeployments(t)
	first := d.Install(t, handlerstest.HelloInstall("site"))
	for range deployment.DefaultTaskPage {
		_, err := d.Service.Queue(context.Background(), &deployment.Stop{Name: "site", By: "olga"})
		require.NoError(t, err)
	}
	doc := handlerstest.Parse(t, d.Request(d.Reader, http.MethodGet, "/deployments/site", nil))
	require.Equal(t, deployment.DefaultTaskPage, doc.Find(`[data-testid="task"]`).Length())
	more := doc.Find(`[data-testid="task-more-link"]`).AttrOr("href", "")
	require.NotEmpty(t, more)

	rec := d.Request(d.Reader, http.MethodGet, more, nil, "HX-Request", "true")
	require.Equal(t, http.StatusOK, rec.Code)
	doc = handlerstest.Parse(t, rec)
	require.Zero(t, doc.Find("nav.nav").Length(), "htmx gets the fragment")
	require.Equal(t, []string{strconv.FormatInt(first.TaskID, 10)}, attrs(doc.Find(`[data-testid="task"]`), "data-task-id"))
	require.Zero(t, doc.Find(`[data-testid="task-more"]`).Length(), "no more pages")

	rec = d.Request(d.Reader, http.MethodGet, more, nil)
	require.Equal(t, http.StatusOK, rec.Code)
	doc = handlerstest.Parse(t, rec)
	require.Contains(t, handlerstest.Text(doc.Find("h1")), "Older tasks of site", "without htmx it is a page")
	require.Equal(t, 1, doc.Find(`[data-testid="task"]`).Length())
}

// attrs returns an attribute of every element of the selection.
func attrs(sel *goquery.Selection, name string) []string {
	out := []string{}
	sel.Each(func(_ int, s *goquery.Selection) { out = append(out, s.AttrOr(name, "")) })
	return out
}

func TestDeploymentListShowsEveryDeploymentWithItsLastTask(t *testing.T) {
	t.Parallel()
	d := handlerstest.SetupDeployments(t)
	ctx := context.Background()
	d.Install(t, handlerstest.HelloInstall("site"))
	d.Install(t, handlerstest.PgInstall("orders"))
	_, err := d.Service.Queue(ctx, &deployment.Stop{Name: "site", By: "olga"})
	require.NoError(t, err)

	doc := handlerstest.Parse(t, d.Request(d.Reader, http.MethodGet, "/deployments", nil))
	require.Equal(t, []string{"orders", "site"}, handlerstest.Texts(doc.Find(`[data-testid="deployment-link"]`)))
	site := doc.Find(`[data-testid="deployment"][data-name="site"]`)
	require.Equal(t, "/drivers/hello-web/1.0.0/icon", site.Find(`img[data-testid="driver-icon"]`).AttrOr("src", ""))
	require.Contains(t, handlerstest.Text(site), "Hello Web")
	require.Equal(t, views.StatusPending, handlerstest.Text(site.Find(`[data-testid="deployment-status"]`)))
	require.Contains(t, handlerstest.Text(site.Find(`[data-testid="last-task"]`)), "Stop components queued")
	require.Contains(t, handlerstest.Text(site.Find(`[data-testid="last-task"]`)), "by olga")

	_, err = d.Pool.Exec(ctx, `UPDATE deployments SET status = 'deleted', deleted_at = now() WHERE name = 'orders'`)
	require.NoError(t, err)
	doc = handlerstest.Parse(t, d.Request(d.Reader, http.MethodGet, "/deployments", nil))
	require.Equal(t, []string{"site"}, handlerstest.Texts(doc.Find(`[data-testid="deployment-link"]`)))
	doc = handlerstest.Parse(t, d.Request(d.Reader, http.MethodGet, "/deployments?deleted=1", nil))
	require.ElementsMatch(t, []string{"orders", "site"}, handlerstest.Texts(doc.Find(`[data-testid="deployment-link"]`)))

	page := handlerstest.Parse(t, d.Request(d.Operator, http.MethodGet, "/deployments/orders", nil))
	require.Equal(t, views.StatusDeleted, handlerstest.Text(page.Find(`[data-testid="deployment-status"]`)))
	require.Zero(t, page.Find(`[data-testid="deployment-actions"]`).Length(), "a deleted deployment offers no change")
	require.Equal(t, http.StatusConflict, d.Request(d.Operator, http.MethodGet, "/deployments/orders/delete", nil).Code)
}

func TestManualActionsRunFromTheirFormOnTheDeploymentPage(t *testing.T) {
	t.Parallel()
	d := handlerstest.SetupDeployments(t)
	d.Install(t, handlerstest.HelloInstall("site"))

	doc := handlerstest.Parse(t, d.Request(d.Operator, http.MethodGet, "/deployments/site", nil))
	form := doc.Find(`[data-testid="action-fetch_page"] form`)
	require.Equal(t, "/deployments/site/actions/fetch_page", attrs(form, "action")[0])
	require.Equal(t, "/", attrs(form.Find(`[name="param.path"]`), "value")[0], "a prompt starts from its default")

	rec := d.Request(d.Operator, http.MethodPost, "/deployments/site/actions/fetch_page", url.Values{"param.path": {"/index.html"}})
	require.Equal(t, http.StatusSeeOther, rec.Code, rec.Body.String())
	run := d.TasksOf(t, "site")[0]
	require.Equal(t, deployment.KindAction, run.Kind)
	require.Equal(t, &deployment.ActionInputs{Action: "fetch_page", Prompts: map[string]any{"path": "/index.html"}}, run.Inputs)

	rec = d.Request(d.Operator, http.MethodPost, "/deployments/site/actions/fetch_page", url.Values{"param.path": {"no-slash"}})
	require.Equal(t, http.StatusSeeOther, rec.Code, "a refused prompt goes back to the page")
	page := d.Request(d.Operator.Follow(rec), http.MethodGet, "/deployments/site", nil)
	require.Contains(t, handlerstest.Text(handlerstest.Parse(t, page).Find(`[data-testid="flash-error"]`)), "Some values need fixing")
	require.Len(t, d.TasksOf(t, "site"), 2, "a refused run queues nothing")

	reader := handlerstest.Parse(t, d.Request(d.Reader, http.MethodGet, "/deployments/site", nil))
	require.Zero(t, reader.Find(`[data-testid="deployment-manual-actions"]`).Length(), "a read-only user sees no action form")
}

// TestDeploymentListComesAPageAtATime: the list shows a page of
// deployments, with a link to the next page that continues after the last
// one shown; a place the list did not give out is refused.
func TestDeploymentListComesAPageAtATime(t *testing.T) {
	t.Parallel()
	d := handlerstest.SetupDeployments(t)
	for i := range deployment.DefaultListPage + 1 {
		d.Install(t, handlerstest.HelloInstall(fmt.Sprintf("app-%03d", i)))
	}

	first := handlerstest.Parse(t, d.Request(d.Reader, http.MethodGet, "/deployments", nil))
	names := handlerstest.Texts(first.Find(`[data-testid="deployment-link"]`))
	require.Len(t, names, deployment.DefaultListPage)
	require.Equal(t, "app-000", names[0])
	require.Zero(t, first.Find(`[data-testid="deployments-first"]`).Length())
	next := first.Find(`[data-testid="deployments-next"]`).AttrOr("href", "")
	require.NotEmpty(t, next)

	rest := handlerstest.Parse(t, d.Request(d.Reader, http.MethodGet, next, nil))
	require.Equal(t, []string{fmt.Sprintf("app-%03d", deployment.DefaultListPage)}, handlerstest.Texts(rest.Find(`[data-testid="deployment-link"]`)))
	require.Zero(t, rest.Find(`[data-testid="deployments-next"]`).Length(), "the last page")
	require.Equal(t, "/deployments", rest.Find(`[data-testid="deployments-first"]`).AttrOr("href", ""))

	rec := d.Request(d.Reader, http.MethodGet, "/deployments?after=somewhere", nil)
	require.Equal(t, http.StatusBadRequest, rec.Code)
	require.Contains(t, handlerstest.Text(handlerstest.Parse(t, rec).Find(`[data-testid="error-message"]`)), "is not a place in the deployments list")
}
