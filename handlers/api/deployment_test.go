package api_test

import (
	"context"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"strconv"
	"testing"

	"github.com/styrmin/styrmin/handlers/handlerstest"

	"github.com/stretchr/testify/require"

	"github.com/styrmin/styrmin/api"
	"github.com/styrmin/styrmin/auth"
	"github.com/styrmin/styrmin/db"
	"github.com/styrmin/styrmin/deployment"
	"github.com/styrmin/styrmin/executor"
)

// apiDeployApp is a server with the bundled drivers and API tokens of an
// operator and a read-only user; tasks are queued and nothing runs them.
type apiDeployApp struct {
	handlerstest.DeployApp
	operatorToken, readerToken string
}

func setupAPIDeployments(t *testing.T) apiDeployApp {
	t.Helper()
	d := handlerstest.SetupDeployments(t)
	return apiDeployApp{DeployApp: d, operatorToken: d.TokenFor(t, "otto", auth.Operator), readerToken: d.TokenFor(t, "ruth", auth.ReadOnly)}
}

// accepted checks a 202 answer and returns its task, which must be the
// deployment's newest.
func (d apiDeployApp) accepted(t *testing.T, rec *httptest.ResponseRecorder, name string) api.Task {
	t.Helper()
	require.Equal(t, http.StatusAccepted, rec.Code, rec.Body.String())
	var out api.TaskAccepted
	require.NoError(t, json.Unmarshal(rec.Body.Bytes(), &out))
	url := "/api/v1/tasks/" + strconv.FormatInt(out.Task.Id, 10)
	require.Equal(t, url, out.Url)
	require.Equal(t, url, rec.Header().Get("Location"))
	require.Equal(t, name, out.Task.Deployment)
	require.Equal(t, "otto", out.Task.By)
	require.Equal(t, api.TaskStatus(executor.TaskQueued), out.Task.Status)
	require.False(t, out.Task.Ended)
	require.Equal(t, d.TasksOf(t, name)[0].ID, out.Task.Id, "the answer's task is the one queued")
	return out.Task
}

// refused checks a problem answer with status and returns it.
func refused(t *testing.T, rec *httptest.ResponseRecorder, status int) api.Problem {
	t.Helper()
	require.Equal(t, status, rec.Code, rec.Body.String())
	return problemOf(t, rec)
}

// fieldsOf returns a problem's field messages.
func fieldsOf(p api.Problem) map[string]string {
	if p.Fields == nil {
		return nil
	}
	return *p.Fields
}

func TestAPIInstallQueuesTheInstallWithTheFormsDefaults(t *testing.T) {
	t.Parallel()
	d := setupAPIDeployments(t)

	rec := d.Call(t, d.operatorToken, http.MethodPost, "/api/v1/deployments", map[string]any{
		"driver": "hello-web", "driver_version": "1.0.0", "name": "site",
		"parameters": map[string]any{"site_title": "Shop", "replicas": 3, "show_version": false, "message": "line 1\nline 2"},
	})
	task := d.accepted(t, rec, "site")
	require.Equal(t, api.TaskKind(deployment.KindInstall), task.Kind)
	installed := inputsOf[api.InstallInputs](t, task)
	require.Equal(t, "1.27.0", installed.AppVersion, "the driver version's default application version")
	require.Equal(t, "site", installed.Namespace)
	require.Equal(t, api.PlainValues{
		"site_title": "Shop", "replicas": float64(3), "show_version": false, "message": "line 1\nline 2",
		"theme": "ocean", "memory_mib": float64(64),
	}, installed.Parameters, "omitted parameters take their defaults; false unchecks a box that defaults to true")

	rec = d.Call(t, d.operatorToken, http.MethodPost, "/api/v1/deployments", map[string]any{
		"driver": "postgresql", "driver_version": "1.2.0", "name": "db", "namespace": "data", "app_version": "16.4.0",
		"parameters": map[string]any{"password": handlerstest.PgSecret, "log_connections": true, "storage_gib": "20"},
	})
	task = d.accepted(t, rec, "db")
	require.NotContains(t, rec.Body.String(), handlerstest.PgSecret, "a secret never comes back")
	installed = inputsOf[api.InstallInputs](t, task)
	params := installed.Parameters
	require.Equal(t, true, params["log_connections"])
	require.Equal(t, float64(20), params["storage_gib"], "a number may come as its text")
	require.Equal(t, "data", installed.Namespace)
	got, err := d.Service.Get(context.Background(), "db")
	require.NoError(t, err)
	require.Equal(t, []string{"password"}, got.SecretsSet)
}

func TestAPIInstallRefusesBadValuesPerField(t *testing.T) {
	t.Parallel()
	d := setupAPIDeployments(t)
	install := func(name string, params map[string]any) map[string]any {
		return map[string]any{"driver": "hello-web", "driver_version": "1.0.0", "name": name, "parameters": params}
	}
	for _, tc := range []struct {
		why    string
		body   map[string]any
		fields map[string]string
	}{
		{"values that are no form text", install("site", map[string]any{"theme": []string{"ocean"}, "colour": "red", "show_version": "no"}),
			map[string]string{
				"param.theme":        "Colour theme takes one value, not a list",
				"param.colour":       "there is no parameter named colour",
				"param.show_version": "Show the nginx version in the footer must be true or false",
			}},
		{"values the service refuses", install("Site", map[string]any{"replicas": 0, "site_title": "<b>"}),
			map[string]string{
				"name":             "the name must be lower-case letters, digits and '-', starting with a letter and ending with a letter or digit",
				"param.replicas":   "0 is less than the minimum 1",
				"param.site_title": `"<b>" does not match the pattern ^[^<>&]+$`,
			}},
		{"an unknown driver version", map[string]any{"driver": "hello-web", "driver_version": "9.9.9", "name": "site"},
			map[string]string{"driver_version": `driver hello-web has no version "9.9.9"`}},
		{"an unknown driver", map[string]any{"driver": "nope", "driver_version": "1.0.0", "name": "site"},
			map[string]string{"driver_version": `driver nope has no version "1.0.0"`}},
		{"prompts of an action the install does not run", map[string]any{"driver": "hello-web", "driver_version": "1.0.0", "name": "site",
			"prompts": map[string]any{"smoke_test": map[string]any{"path": "/"}}},
			map[string]string{"prompt.smoke_test": "this change runs no action smoke_test that asks prompts"}},
	} {
		p := refused(t, d.Call(t, d.operatorToken, http.MethodPost, "/api/v1/deployments", tc.body), http.StatusBadRequest)
		require.Equal(t, api.ProblemCode("invalid"), p.Code, tc.why)
		require.Equal(t, tc.fields, fieldsOf(p), tc.why)
		for field, message := range tc.fields {
			require.Contains(t, p.Detail, field+": "+message, "%s: the detail lists every field, for scripts that print it", tc.why)
		}
	}
	_, err := d.Service.Get(context.Background(), "site")
	require.Error(t, err, "nothing was installed")

	p := refused(t, d.Call(t, d.readerToken, http.MethodPost, "/api/v1/deployments", install("site", nil)), http.StatusForbidden)
	require.Equal(t, api.ProblemCode("forbidden"), p.Code)
}

// TestAPIUpgradeReviewsWithoutACluster checks what can be checked of an
// upgrade on a server without a cluster: the review of a dry run (its
// changes, and the dry run's error) and the refusal to queue an upgrade
// whose dry run failed. TestAPIClientOnTheCluster upgrades for real.
func TestAPIUpgradeReviewsWithoutACluster(t *testing.T) {
	t.Parallel()
	d := setupAPIDeployments(t)
	d.Install(t, handlerstest.HelloInstall("site"))

	rec := d.Call(t, d.operatorToken, http.MethodPost, "/api/v1/deployments/site/upgrade?dry_run=true",
		map[string]any{"parameters": map[string]any{"replicas": 4, "show_version": true}})
	require.Equal(t, http.StatusOK, rec.Code, rec.Body.String())
	var review api.UpgradeReview
	require.NoError(t, json.Unmarshal(rec.Body.Bytes(), &review))
	require.Equal(t, "1.0.0", review.FromDriverVersion)
	require.Equal(t, "1.0.0", review.DriverVersion)
	require.Equal(t, "1.27.0", review.AppVersion)
	changes := map[string]api.ParameterChange{}
	for _, c := range review.Changes {
		changes[c.Name] = c
	}
	require.Equal(t, api.ParameterChange{Name: "replicas", Title: "Replicas", Change: "changed", From: "2", To: "4"}, changes["replicas"])
	require.Equal(t, api.ParameterChange{Name: "show_version", Title: "Show the nginx version in the footer", Change: "changed", From: "false", To: "true"}, changes["show_version"],
		"helloInstall left the box unchecked")
	require.Equal(t, api.ParameterChangeChange("unchanged"), changes["site_title"].Change, "omitted parameters keep their value")
	require.NotNil(t, review.DryRunError)
	require.Contains(t, *review.DryRunError, "cluster")
	require.Empty(t, review.Resources)

	rec = d.Call(t, d.operatorToken, http.MethodPost, "/api/v1/deployments/site/upgrade", map[string]any{"parameters": map[string]any{"replicas": 4}})
	p := refused(t, rec, http.StatusConflict)
	require.Contains(t, p.Detail, "dry run failed")
	require.Contains(t, p.Detail, *review.DryRunError)
	require.Len(t, d.TasksOf(t, "site"), 1, "nothing was queued")

	d.Install(t, handlerstest.PgInstall("orders"))
	rec = d.Call(t, d.operatorToken, http.MethodPost, "/api/v1/deployments/orders/upgrade?dry_run=true",
		map[string]any{"prompts": map[string]any{"backup": map[string]any{"label": "nightly"}}})
	require.Equal(t, http.StatusOK, rec.Code, rec.Body.String())
	review = api.UpgradeReview{}
	require.NoError(t, json.Unmarshal(rec.Body.Bytes(), &review))
	require.NotNil(t, review.Prompts)
	require.Contains(t, *review.Prompts, api.PromptValue{Action: "backup", Hook: "pre-upgrade", Name: "label", Title: "Backup label", Value: "nightly", Set: true},
		"the review says what the hook actions will run with")

	p = refused(t, d.Call(t, d.operatorToken, http.MethodPost, "/api/v1/deployments/site/upgrade?dry_run=true",
		map[string]any{"parameters": map[string]any{"replicas": 11, "colour": "red"}}), http.StatusBadRequest)
	require.Equal(t, map[string]string{"param.colour": "there is no parameter named colour"}, fieldsOf(p))
	p = refused(t, d.Call(t, d.operatorToken, http.MethodPost, "/api/v1/deployments/site/upgrade?dry_run=true",
		map[string]any{"parameters": map[string]any{"replicas": 11}, "app_version": "3.0.0"}), http.StatusBadRequest)
	require.Equal(t, "11 is more than the maximum 10", fieldsOf(p)["param.replicas"])
	require.Contains(t, fieldsOf(p), "app_version")
	p = refused(t, d.Call(t, d.operatorToken, http.MethodPost, "/api/v1/deployments/site/upgrade",
		map[string]any{"driver_version": "0.1.0"}), http.StatusBadRequest)
	require.Contains(t, fieldsOf(p), "driver_version")

	refused(t, d.Call(t, d.operatorToken, http.MethodPost, "/api/v1/deployments/nope/upgrade?dry_run=true", map[string]any{}), http.StatusNotFound)
	refused(t, d.Call(t, d.readerToken, http.MethodPost, "/api/v1/deployments/site/upgrade?dry_run=true", map[string]any{}), http.StatusForbidden)
}

func TestAPIStopStartRollbackAndDeleteQueueTasks(t *testing.T) {
	t.Parallel()
	d := setupAPIDeployments(t)
	install := d.Install(t, handlerstest.HelloInstall("site"))

	stop := d.accepted(t, d.Call(t, d.operatorToken, http.MethodPost, "/api/v1/deployments/site/stop", nil), "site")
	require.Equal(t, api.TaskKind(deployment.KindStop), stop.Kind)
	require.Equal(t, api.StopInputs{Kind: "stop", Components: []string{}}, inputsOf[api.StopInputs](t, stop), "no body means every component")
	start := d.accepted(t, d.Call(t, d.operatorToken, http.MethodPost, "/api/v1/deployments/site/start",
		map[string]any{"components": []string{"web"}}), "site")
	require.Equal(t, api.TaskKind(deployment.KindStart), start.Kind)
	require.Equal(t, api.StartInputs{Kind: "start", Components: []string{"web"}}, inputsOf[api.StartInputs](t, start))
	require.Equal(t, 2, *start.QueuePosition, "the install and the stop wait before it")
	p := refused(t, d.Call(t, d.operatorToken, http.MethodPost, "/api/v1/deployments/site/stop",
		map[string]any{"components": []string{"db"}}), http.StatusBadRequest)
	require.Contains(t, p.Detail, `has no component "db"`)

	p = refused(t, d.Call(t, d.operatorToken, http.MethodPost, "/api/v1/deployments/site/rollback", map[string]any{}), http.StatusBadRequest)
	require.Contains(t, fieldsOf(p), "revision")
	p = refused(t, d.Call(t, d.operatorToken, http.MethodPost, "/api/v1/deployments/site/rollback", map[string]any{"revision": 1}), http.StatusBadRequest)
	require.Contains(t, p.Detail, "has no revision 1")
	dep, err := d.Service.Get(context.Background(), "site")
	require.NoError(t, err)
	require.NoError(t, db.New(d.Pool).InsertRevision(context.Background(), db.InsertRevisionParams{
		DeploymentID: dep.ID, Revision: 1, TaskID: install.TaskID, DriverVersion: "1.0.0", AppVersion: "1.26.0", Parameters: []byte(`{}`),
	}))
	rollback := d.accepted(t, d.Call(t, d.operatorToken, http.MethodPost, "/api/v1/deployments/site/rollback", map[string]any{"revision": 1}), "site")
	require.Equal(t, api.TaskKind(deployment.KindRollback), rollback.Kind)
	require.Equal(t, api.RollbackInputs{Kind: "rollback", Revision: 1, DriverVersion: "1.0.0", AppVersion: "1.26.0"}, inputsOf[api.RollbackInputs](t, rollback))

	del := d.accepted(t, d.Call(t, d.operatorToken, http.MethodDelete, "/api/v1/deployments/site", nil), "site")
	require.Equal(t, api.TaskKind(deployment.KindDelete), del.Kind, "the API's delete needs no typed confirmation")
	p = refused(t, d.Call(t, d.operatorToken, http.MethodDelete, "/api/v1/deployments/site",
		map[string]any{"prompts": map[string]any{"backup": map[string]any{"label": "x"}}}), http.StatusBadRequest)
	require.Equal(t, map[string]string{"prompt.backup": "this change runs no action backup that asks prompts"}, fieldsOf(p))

	for _, op := range []struct{ method, path string }{
		{http.MethodPost, "/api/v1/deployments/nope/stop"}, {http.MethodPost, "/api/v1/deployments/nope/start"},
		{http.MethodPost, "/api/v1/deployments/nope/rollback"}, {http.MethodDelete, "/api/v1/deployments/nope"},
	} {
		p := refused(t, d.Call(t, d.operatorToken, op.method, op.path, map[string]any{"revision": 1}), http.StatusNotFound)
		require.Equal(t, api.ProblemCode("not_found"), p.Code, op.path)
		refused(t, d.Call(t, d.readerToken, op.method, op.path, map[string]any{"revision": 1}), http.StatusForbidden)
	}
}

func TestAPIRunActionReadsItsPromptsAsTheFormDoes(t *testing.T) {
	t.Parallel()
	d := setupAPIDeployments(t)
	d.Install(t, handlerstest.HelloInstall("site"))
	d.Install(t, &deployment.Install{Driver: "redis", DriverVersion: "1.0.0", Name: "cache", AppVersion: "7.4.1",
		Parameters: deployment.FormInput{"password": handlerstest.PgSecret}})

	run := d.accepted(t, d.Call(t, d.operatorToken, http.MethodPost, "/api/v1/deployments/site/actions/fetch_page",
		map[string]any{"prompts": map[string]any{"path": "/index.html"}}), "site")
	require.Equal(t, api.TaskKind(deployment.KindAction), run.Kind)
	require.Equal(t, api.ActionInputs{Kind: "action", Action: "fetch_page", Prompts: api.PlainValues{"path": "/index.html"}}, inputsOf[api.ActionInputs](t, run))
	run = d.accepted(t, d.Call(t, d.operatorToken, http.MethodPost, "/api/v1/deployments/site/actions/fetch_page", nil), "site")
	require.Equal(t, api.PlainValues{"path": "/"}, inputsOf[api.ActionInputs](t, run).Prompts, "an omitted prompt takes its default")
	flush := d.accepted(t, d.Call(t, d.operatorToken, http.MethodPost, "/api/v1/deployments/cache/actions/flush",
		map[string]any{"prompts": map[string]any{"database": 3, "all_databases": true, "confirm": "FLUSH"}}), "cache")
	require.Equal(t, api.PlainValues{"database": float64(3), "all_databases": true, "confirm": "FLUSH"}, inputsOf[api.ActionInputs](t, flush).Prompts)

	p := refused(t, d.Call(t, d.operatorToken, http.MethodPost, "/api/v1/deployments/site/actions/fetch_page",
		map[string]any{"prompts": map[string]any{"path": "no-slash"}}), http.StatusBadRequest)
	require.Equal(t, map[string]string{"prompt.fetch_page.path": `"no-slash" does not match the pattern ^/[A-Za-z0-9._~/-]*$`}, fieldsOf(p))
	p = refused(t, d.Call(t, d.operatorToken, http.MethodPost, "/api/v1/deployments/site/actions/fetch_page",
		map[string]any{"prompts": map[string]any{"path": []string{"/"}, "depth": 2}}), http.StatusBadRequest)
	require.Equal(t, map[string]string{
		"prompt.fetch_page.path":  "Path takes one value, not a list",
		"prompt.fetch_page.depth": "there is no parameter named depth",
	}, fieldsOf(p))

	refused(t, d.Call(t, d.operatorToken, http.MethodPost, "/api/v1/deployments/site/actions/smoke_test", nil), http.StatusNotFound)
	refused(t, d.Call(t, d.operatorToken, http.MethodPost, "/api/v1/deployments/site/actions/nope", nil), http.StatusNotFound)
	refused(t, d.Call(t, d.operatorToken, http.MethodPost, "/api/v1/deployments/nope/actions/fetch_page", nil), http.StatusNotFound)
	refused(t, d.Call(t, d.readerToken, http.MethodPost, "/api/v1/deployments/site/actions/fetch_page", nil), http.StatusForbidden)
	require.Len(t, d.TasksOf(t, "site"), 3, "refused runs queue nothing")
}

func TestAPICancelTaskFindsItsDeployment(t *testing.T) {
	t.Parallel()
	d := setupAPIDeployments(t)
	d.Install(t, handlerstest.HelloInstall("site"))
	stop, err := d.Service.Queue(context.Background(), &deployment.Stop{Name: "site", By: "olga"})
	require.NoError(t, err)
	path := "/api/v1/tasks/" + strconv.FormatInt(stop.TaskID, 10) + "/cancel"

	refused(t, d.Call(t, d.readerToken, http.MethodPost, path, nil), http.StatusForbidden)
	rec := d.Call(t, d.operatorToken, http.MethodPost, path, nil)
	require.Equal(t, http.StatusOK, rec.Code, rec.Body.String())
	var task api.Task
	require.NoError(t, json.Unmarshal(rec.Body.Bytes(), &task))
	require.Equal(t, stop.TaskID, task.Id)
	require.Equal(t, "site", task.Deployment)
	require.Equal(t, api.TaskStatus(executor.TaskCanceled), task.Status)
	require.True(t, task.Ended)
	require.Equal(t, "Cancelled by otto before it started.", task.Message)

	p := refused(t, d.Call(t, d.operatorToken, http.MethodPost, path, nil), http.StatusConflict)
	require.Contains(t, p.Detail, "has ended")
	refused(t, d.Call(t, d.operatorToken, http.MethodPost, "/api/v1/tasks/999999/cancel", nil), http.StatusNotFound)
}

func TestAPIHookActionPromptsOnInstallAndDelete(t *testing.T) {
	t.Parallel()
	d := setupAPIDeployments(t)
	handlerstest.ImportHooked(t, d.DeployApp)
	install := func(prompts map[string]any) map[string]any {
		return map[string]any{"driver": "hooked", "driver_version": "1.0.0", "name": "data", "app_version": "1.0.0", "prompts": prompts}
	}

	p := refused(t, d.Call(t, d.operatorToken, http.MethodPost, "/api/v1/deployments", install(map[string]any{
		"seed": map[string]any{"rows": 11}, "archive": map[string]any{"bucket": "b"},
	})), http.StatusBadRequest)
	require.Equal(t, map[string]string{"prompt.archive": "this change runs no action archive that asks prompts"}, fieldsOf(p),
		"the service checks the values once the request names only what the install runs")
	p = refused(t, d.Call(t, d.operatorToken, http.MethodPost, "/api/v1/deployments", install(map[string]any{
		"seed": map[string]any{"rows": 11},
	})), http.StatusBadRequest)
	require.Equal(t, map[string]string{
		"prompt.seed.rows":    "11 is more than the maximum 10",
		"prompt.seed.api_key": "API key is required",
	}, fieldsOf(p))

	rec := d.Call(t, d.operatorToken, http.MethodPost, "/api/v1/deployments", install(map[string]any{
		"seed": map[string]any{"api_key": handlerstest.PromptSecret},
	}))
	task := d.accepted(t, rec, "data")
	require.Equal(t, api.PromptValues{"seed": {"rows": float64(3)}}, inputsOf[api.InstallInputs](t, task).Prompts, "an omitted prompt takes its default; a secret one is not an input")
	require.NotContains(t, rec.Body.String(), handlerstest.PromptSecret)

	p = refused(t, d.Call(t, d.operatorToken, http.MethodDelete, "/api/v1/deployments/data", nil), http.StatusBadRequest)
	require.Equal(t, map[string]string{"prompt.archive.token": "Archive token is required"}, fieldsOf(p))
	del := d.accepted(t, d.Call(t, d.operatorToken, http.MethodDelete, "/api/v1/deployments/data", map[string]any{
		"prompts": map[string]any{"archive": map[string]any{"token": handlerstest.PromptSecret, "bucket": "cold"}},
	}), "data")
	require.Equal(t, api.PromptValues{"archive": {"bucket": "cold"}}, inputsOf[api.DeleteInputs](t, del).Prompts)
}

func TestAPIReconcileQueuesATaskAndAReaderCanNeitherReconcileNorAccept(t *testing.T) {
	t.Parallel()
	d := setupAPIDeployments(t)
	d.Install(t, handlerstest.HelloInstall("site"))
	dep, err := d.Service.Get(context.Background(), "site")
	require.NoError(t, err)
	before := len(d.TasksOf(t, "site"))

	for _, path := range []string{"/api/v1/deployments/site/reconcile", "/api/v1/deployments/site/drift/accept"} {
		p := refused(t, d.Call(t, d.readerToken, http.MethodPost, path, nil), http.StatusForbidden)
		require.Equal(t, api.ProblemCode("forbidden"), p.Code, path)
	}
	require.Len(t, d.TasksOf(t, "site"), before, "a reader's reconcile queues nothing")
	acceptances, err := db.New(d.Pool).ListDriftAcceptances(context.Background(), dep.ID)
	require.NoError(t, err)
	require.Empty(t, acceptances, "a reader's accept records nothing")

	reconcile := d.accepted(t, d.Call(t, d.operatorToken, http.MethodPost, "/api/v1/deployments/site/reconcile", nil), "site")
	require.Equal(t, api.TaskKind(deployment.KindReconcile), reconcile.Kind)
	require.Equal(t, api.ReconcileInputs{Kind: "reconcile"}, inputsOf[api.ReconcileInputs](t, reconcile))
	p := refused(t, d.Call(t, d.operatorToken, http.MethodPost, "/api/v1/deployments/site/drift/accept", nil), http.StatusConflict)
	require.Contains(t, p.Detail, "nothing to accept", "without a cluster there is no drift read to accept")
	refused(t, d.Call(t, d.operatorToken, http.MethodPost, "/api/v1/deployments/nope/reconcile", nil), http.StatusNotFound)
}
