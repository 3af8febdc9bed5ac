package handlers_test

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"net/url"
	"slices"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/styrmin/styrmin/audit"
	"github.com/styrmin/styrmin/auth"
	"github.com/styrmin/styrmin/handlers/handlerstest"
)

// teamsApp is a server with two teams, a and b, each holding one deployment
// (alpha in a, beta in b; b also holds gone, a deleted one), and users whose
// own role is member: amy, an operator in a, and rob, read-only in a.
type teamsApp struct {
	handlerstest.DeployApp
	amy, rob           handlerstest.Visitor
	amyToken, robToken string
	// betaTask is the install task of beta, the deployment of the other team.
	betaTask int64
}

func setupTeams(t *testing.T) teamsApp {
	t.Helper()
	ctx := context.Background()
	d := handlerstest.SetupDeployments(t)
	store := d.Deps.Teams
	beta := d.TwoTeams(t)
	d.Install(t, handlerstest.HelloInstall("gone"))
	require.NoError(t, store.Move(ctx, "gone", "b"))
	_, err := d.Pool.Exec(ctx, "UPDATE deployments SET deleted_at = now(), status = 'deleted' WHERE name = 'gone'")
	require.NoError(t, err)
	s := teamsApp{DeployApp: d, betaTask: beta.TaskID}
	var amy, rob auth.User
	s.amy, amy = d.As(t, "amy", auth.Member)
	s.rob, rob = d.As(t, "rob", auth.Member)
	require.NoError(t, store.SetMember(ctx, "a", amy.ID, auth.Operator))
	require.NoError(t, store.SetMember(ctx, "a", rob.ID, auth.ReadOnly))
	s.amyToken, s.robToken = d.TokenOf(t, amy), d.TokenOf(t, rob)
	return s
}

// TestAnOperatorOfOneTeamCannotTouchOrSeeAnotherTeamsDeployment is the
// attack: amy, an operator in team a, reads, stops, upgrades, runs an action
// on, deletes and reads the tasks and logs of beta, team b's deployment,
// through the pages and the REST API, by its name and by its task's id. Each
// is told beta does not exist (404, as for a name nobody used), and beta
// has no new task.
func TestAnOperatorOfOneTeamCannotTouchOrSeeAnotherTeamsDeployment(t *testing.T) {
	t.Parallel()
	s := setupTeams(t)
	before := len(s.TasksOf(t, "beta"))
	task := fmt.Sprint(s.betaTask)
	for _, page := range []struct{ method, path string }{
		{http.MethodGet, "/deployments/beta"},
		{http.MethodGet, "/deployments/beta/health"},
		{http.MethodGet, "/deployments/beta/drift"},
		{http.MethodGet, "/deployments/beta/tasks"},
		{http.MethodGet, "/deployments/beta/tasks/" + task},
		{http.MethodGet, "/deployments/beta/pods/beta-0/logs"},
		{http.MethodGet, "/deployments/beta/upgrade"},
		{http.MethodPost, "/deployments/beta/stop"},
		{http.MethodPost, "/deployments/beta/start"},
		{http.MethodPost, "/deployments/beta/upgrade/review"},
		{http.MethodPost, "/deployments/beta/actions/check"},
		{http.MethodPost, "/deployments/beta/delete"},
		{http.MethodPost, "/deployments/beta/tasks/" + task + "/cancel"},
	} {
		var form url.Values
		if page.method == http.MethodPost {
			form = url.Values{"confirm": {"beta"}}
		}
		rec := s.Request(s.amy, page.method, page.path, form)
		require.Equal(t, http.StatusNotFound, rec.Code, "%s %s: %s", page.method, page.path, rec.Body.String())
		require.Contains(t, rec.Body.String(), `There is no deployment named &#34;beta&#34;.`, "%s %s answers as for a name nobody used", page.method, page.path)
	}
	// Neither a name in another case nor a deleted deployment of team b
	// (whose history a deleted deployment's page shows) is a way in.
	for _, name := range []string{"BETA", "Beta", "gone"} {
		rec := s.Request(s.amy, http.MethodGet, "/deployments/"+name, nil)
		require.Equal(t, http.StatusNotFound, rec.Code, name)
		require.Contains(t, rec.Body.String(), `There is no deployment named &#34;`+name+`&#34;.`, name)
		rec = s.Call(t, s.amyToken, http.MethodGet, "/api/v1/deployments/"+name, nil)
		require.Equal(t, http.StatusNotFound, rec.Code, name)
	}
	rec := s.Request(s.Reader, http.MethodGet, "/deployments/gone", nil)
	require.Equal(t, http.StatusOK, rec.Code, "a read-only user reads the deleted deployment: gone exists")
	for _, op := range betaOperations(task) {
		rec := s.Call(t, s.amyToken, op.method, op.path, op.body)
		require.Equal(t, http.StatusNotFound, rec.Code, "%s %s: %s", op.method, op.path, rec.Body.String())
	}
	require.Len(t, s.TasksOf(t, "beta"), before, "nothing was queued on beta")

	rec = s.Request(s.amy, http.MethodGet, "/deployments", nil)
	require.Equal(t, http.StatusOK, rec.Code)
	names := handlerstest.Texts(handlerstest.Parse(t, rec).Find(`[data-testid="deployment-link"]`))
	require.Equal(t, []string{"alpha"}, names, "the list shows amy her team's deployments only")
	rec = s.Call(t, s.amyToken, http.MethodGet, "/api/v1/deployments", nil)
	require.Equal(t, http.StatusOK, rec.Code)
	require.Contains(t, rec.Body.String(), `"alpha"`)
	require.NotContains(t, rec.Body.String(), `"beta"`)
}

// TestATeamRoleDecidesWhatAMemberMayDoWithItsDeployments: in team a, amy
// (operator) stops alpha, and rob (read-only) reads alpha but is refused
// its stop (403: he may know it exists); rita, whose own role is
// read-only, still reads every team's deployments, as an auditor.
func TestATeamRoleDecidesWhatAMemberMayDoWithItsDeployments(t *testing.T) {
	t.Parallel()
	s := setupTeams(t)
	rec := s.Request(s.amy, http.MethodGet, "/deployments/alpha", nil)
	require.Equal(t, http.StatusOK, rec.Code)
	require.NotEmpty(t, handlerstest.Parse(t, rec).Find(`[data-testid="deployment-actions"]`).Nodes, "the page offers amy the changes her role in a allows")
	rec = s.Call(t, s.amyToken, http.MethodPost, "/api/v1/deployments/alpha/stop", nil)
	require.Equal(t, http.StatusAccepted, rec.Code, rec.Body.String())

	rec = s.Request(s.rob, http.MethodGet, "/deployments/alpha", nil)
	require.Equal(t, http.StatusOK, rec.Code)
	require.Empty(t, handlerstest.Parse(t, rec).Find(`[data-testid="deployment-actions"]`).Nodes, "rob's page offers no change")
	before := len(s.TasksOf(t, "alpha"))
	rec = s.Request(s.rob, http.MethodPost, "/deployments/alpha/stop", url.Values{})
	require.Equal(t, http.StatusForbidden, rec.Code)
	rec = s.Call(t, s.robToken, http.MethodPost, "/api/v1/deployments/alpha/stop", nil)
	require.Equal(t, http.StatusForbidden, rec.Code)
	require.Len(t, s.TasksOf(t, "alpha"), before)

	rec = s.Request(s.Reader, http.MethodGet, "/deployments/beta", nil)
	require.Equal(t, http.StatusOK, rec.Code, "a read-only user reads every team's deployments")
}

// helloForm is the deploy form of Hello Web as a browser sends it.
func helloForm(name, team string) url.Values {
	return url.Values{"name": {name}, "team": {team}, "driver_version": {"1.0.0"}, "app_version": {"1.27.0"},
		"param.site_title": {"Shop"}, "param.replicas": {"1"}}
}

// TestAMemberDeploysIntoTheTeamsWhereTheyOperateOnly: the deploy form offers
// amy (operator in a) her team a only; a deploy into team b, or into a team
// that does not exist, is refused at the team field (page and API) and makes
// nothing; a deploy into a lands there, in her list. rob, read-only in a,
// may not open the form; olga, an operator of her own, deploys into the
// default team when she names none.
func TestAMemberDeploysIntoTheTeamsWhereTheyOperateOnly(t *testing.T) {
	t.Parallel()
	s := setupTeams(t)
	rec := s.Request(s.amy, http.MethodGet, "/drivers/hello-web/deploy", nil)
	require.Equal(t, http.StatusOK, rec.Code, rec.Body.String())
	require.Equal(t, []string{"a"}, handlerstest.Texts(handlerstest.Parse(t, rec).Find(`[data-testid="team-select"] option`)))

	for team, why := range map[string]string{
		"b":       "you may not deploy into the team b: that needs the operator role in it",
		"nowhere": `there is no team named "nowhere"`,
	} {
		rec = s.Request(s.amy, http.MethodPost, "/drivers/hello-web/deploy", helloForm("shop-"+team, team))
		require.Equal(t, http.StatusUnprocessableEntity, rec.Code, rec.Body.String())
		require.Contains(t, handlerstest.Text(handlerstest.Parse(t, rec).Find(`#deploy-team-error`)), why)
		rec = s.Call(t, s.amyToken, http.MethodPost, "/api/v1/deployments", map[string]any{
			"driver": "hello-web", "driver_version": "1.0.0", "name": "api-" + team, "team": team,
		})
		require.Equal(t, http.StatusBadRequest, rec.Code, rec.Body.String())
		var problem struct{ Fields map[string]string }
		require.NoError(t, json.Unmarshal(rec.Body.Bytes(), &problem))
		require.Contains(t, problem.Fields["team"], why, "the API says why at the field team")
		_, err := s.Service.Get(context.Background(), "shop-"+team)
		require.Error(t, err, "nothing is made")
	}

	rec = s.Request(s.amy, http.MethodPost, "/drivers/hello-web/deploy", helloForm("shop", "a"))
	require.Equal(t, http.StatusSeeOther, rec.Code, rec.Body.String())
	rec = s.Call(t, s.amyToken, http.MethodPost, "/api/v1/deployments", map[string]any{
		"driver": "hello-web", "driver_version": "1.0.0", "name": "shop-api", "team": "a",
	})
	require.Equal(t, http.StatusAccepted, rec.Code, rec.Body.String())
	rec = s.Request(s.amy, http.MethodGet, "/deployments", nil)
	require.ElementsMatch(t, []string{"alpha", "shop", "shop-api"}, handlerstest.Texts(handlerstest.Parse(t, rec).Find(`[data-testid="deployment-link"]`)))

	rec = s.Request(s.rob, http.MethodGet, "/drivers/hello-web/deploy", nil)
	require.Equal(t, http.StatusForbidden, rec.Code)
	rec = s.Call(t, s.robToken, http.MethodPost, "/api/v1/deployments", map[string]any{"driver": "hello-web", "driver_version": "1.0.0", "name": "rob"})
	require.Equal(t, http.StatusForbidden, rec.Code)

	rec = s.Request(s.Operator, http.MethodPost, "/drivers/hello-web/deploy", helloForm("olgas", ""))
	require.Equal(t, http.StatusSeeOther, rec.Code, rec.Body.String())
	rec = s.Request(s.amy, http.MethodGet, "/deployments/olgas", nil)
	require.Equal(t, http.StatusNotFound, rec.Code, "olga's deployment is in the team default, which amy is not in")
}

// TestAnInstallNamingNoTeamGoesIntoTheInstallersOneTeam: amy, whose own
// role is member and who operates team a only, deploys without naming a
// team, through the API and the deploy form, and both deployments land in
// a; so does one of an auditor (read-only of her own) who operates b only,
// into b. Once amy operates b too, an install naming no team goes to the
// team default, where she may not deploy: refused at the field.
func TestAnInstallNamingNoTeamGoesIntoTheInstallersOneTeam(t *testing.T) {
	t.Parallel()
	s := setupTeams(t)
	install := func(token, name string) *httptest.ResponseRecorder {
		return s.Call(t, token, http.MethodPost, "/api/v1/deployments", map[string]any{"driver": "hello-web", "driver_version": "1.0.0", "name": name})
	}
	rec := install(s.amyToken, "shop-api")
	require.Equal(t, http.StatusAccepted, rec.Code, rec.Body.String())
	require.Equal(t, "a", teamOfDeployment(t, s, s.amyToken, "shop-api"))

	rec = s.Request(s.amy, http.MethodGet, "/drivers/hello-web/deploy", nil)
	require.Equal(t, "a", handlerstest.Parse(t, rec).Find(`[data-testid="team-select"] option[selected]`).AttrOr("value", ""), "the form starts with her team")
	rec = s.Request(s.amy, http.MethodPost, "/drivers/hello-web/deploy", helloForm("shop", ""))
	require.Equal(t, http.StatusSeeOther, rec.Code, rec.Body.String())
	require.Equal(t, "a", teamOfDeployment(t, s, s.amyToken, "shop"), "a form sent without a team goes into hers too")

	_, auditor := s.As(t, "ada", auth.ReadOnly)
	require.NoError(t, s.Deps.Teams.SetMember(context.Background(), "b", auditor.ID, auth.Operator))
	adaToken := s.TokenOf(t, auditor)
	rec = install(adaToken, "ada-api")
	require.Equal(t, http.StatusAccepted, rec.Code, rec.Body.String())
	require.Equal(t, "b", teamOfDeployment(t, s, adaToken, "ada-api"))

	amy, err := s.Users.GetByUsername(context.Background(), "amy")
	require.NoError(t, err)
	require.NoError(t, s.Deps.Teams.SetMember(context.Background(), "b", amy.ID, auth.Operator))
	rec = install(s.amyToken, "two-teams")
	require.Equal(t, http.StatusBadRequest, rec.Code, rec.Body.String())
	require.Contains(t, rec.Body.String(), "you may not deploy into the team default")
}

// recordAbout records an allowed audit entry of an admin about a target.
func recordAbout(t *testing.T, s teamsApp, action, kind, name string) {
	t.Helper()
	require.NoError(t, s.Deps.Audit.Record(context.Background(), audit.Entry{
		Actor: audit.Actor{Name: "root", Via: audit.ViaSession, Role: "admin"}, Action: action,
		Target: audit.Target{Kind: kind, Name: name}, Outcome: audit.Allowed,
	}))
}

// apiList is a page of the REST API's tasks or audit entries, as far as
// these tests read it.
type apiList struct {
	Items []struct {
		Deployment string
		Target     struct{ Kind, Name string }
	}
}

// listOf calls a list operation with a token and decodes its page.
func listOf(t *testing.T, s teamsApp, token, path string) apiList {
	t.Helper()
	rec := s.Call(t, token, http.MethodGet, path, nil)
	require.Equal(t, http.StatusOK, rec.Code, "%s: %s", path, rec.Body.String())
	var list apiList
	require.NoError(t, json.Unmarshal(rec.Body.Bytes(), &list))
	return list
}

// TestAMemberReadsTheTasksAndAuditEntriesOfTheirTeamsOnly: amy, an operator
// in team a, opens the task activity and the audit log (page and API) and
// finds alpha's tasks and the entries about alpha and her team a, never
// beta's, team b's or the global ones (a user's); asking for beta by name
// is answered as for a name nobody used. rita, read-only of her own, reads
// every team's, as an auditor, but no user's entry (an admin's to read).
func TestAMemberReadsTheTasksAndAuditEntriesOfTheirTeamsOnly(t *testing.T) {
	t.Parallel()
	s := setupTeams(t)
	for _, name := range []string{"alpha", "beta", "gone"} {
		recordAbout(t, s, audit.ActionDeploymentStop, audit.TargetDeployment, name)
	}
	recordAbout(t, s, audit.ActionTeamUpdate, audit.TargetTeam, "a")
	recordAbout(t, s, audit.ActionTeamUpdate, audit.TargetTeam, "b")
	recordAbout(t, s, audit.ActionUserCreate, audit.TargetUser, "amy")

	rec := s.Request(s.amy, http.MethodGet, "/tasks", nil)
	require.Equal(t, http.StatusOK, rec.Code, rec.Body.String())
	require.Equal(t, []string{"alpha"}, slices.Compact(handlerstest.Texts(handlerstest.Parse(t, rec).Find(`[data-testid="activity-deployment"]`))))
	require.NotEmpty(t, handlerstest.Parse(t, rec).Find(`[data-testid="nav"] a[href="/tasks"]`).Nodes, "the menu offers a member the tasks")
	for _, name := range []string{"beta", "gone", "nobody"} {
		rec = s.Request(s.amy, http.MethodGet, "/tasks?deployment="+name, nil)
		require.Equal(t, http.StatusOK, rec.Code)
		require.Contains(t, handlerstest.Text(handlerstest.Parse(t, rec).Find(`[data-testid="tasks-problem"]`)), fmt.Sprintf("There is no deployment named %q.", name), "beta's tasks are asked for as a name nobody used")
		rec = s.Call(t, s.amyToken, http.MethodGet, "/api/v1/tasks?deployment="+name, nil)
		require.Equal(t, http.StatusNotFound, rec.Code, name)
	}
	var deployments []string
	for _, task := range listOf(t, s, s.amyToken, "/api/v1/tasks").Items {
		deployments = append(deployments, task.Deployment)
	}
	require.Equal(t, []string{"alpha"}, slices.Compact(deployments))

	rec = s.Request(s.amy, http.MethodGet, "/audit", nil)
	require.Equal(t, http.StatusOK, rec.Code, rec.Body.String())
	require.Equal(t, []string{"team a", "deployment alpha"}, handlerstest.Texts(handlerstest.Parse(t, rec).Find(`[data-testid="audit-target"]`)))
	require.Equal(t, []string{"deployment", "team"}, handlerstest.Texts(handlerstest.Parse(t, rec).Find(`[data-testid="audit-filter-target-kind"] option[value!=""]`)))
	rec = s.Request(s.amy, http.MethodGet, "/audit?target=beta", nil)
	require.Equal(t, http.StatusOK, rec.Code)
	require.Empty(t, handlerstest.Parse(t, rec).Find(`[data-testid="audit-entry"]`).Nodes, "a filter cannot reach another team's entries")
	targets := func(token, query string) []string {
		var out []string
		for _, e := range listOf(t, s, token, "/api/v1/audit"+query).Items {
			out = append(out, e.Target.Kind+" "+e.Target.Name)
		}
		return out
	}
	require.Equal(t, []string{"team a", "deployment alpha"}, targets(s.amyToken, ""))
	require.Empty(t, targets(s.amyToken, "?target=beta"))
	require.Empty(t, targets(s.amyToken, "?target_kind=user"))

	rita := s.TokenFor(t, "auditor", auth.ReadOnly)
	require.Equal(t, []string{"team b", "team a", "deployment gone", "deployment beta", "deployment alpha"}, targets(rita, ""))
	deployments = nil
	for _, task := range listOf(t, s, rita, "/api/v1/tasks").Items {
		deployments = append(deployments, task.Deployment)
	}
	require.Subset(t, deployments, []string{"alpha", "beta", "gone"}, "a read-only user reads every team's tasks")
}
