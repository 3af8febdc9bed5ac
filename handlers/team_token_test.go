package handlers_test

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/url"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/styrmin/styrmin/auth"
	"github.com/styrmin/styrmin/handlers/handlerstest"
)

// apiOperation is a REST API call of an attack.
type apiOperation struct {
	method, path string
	body         any
}

// betaOperations are the REST API's reads and changes of beta, team b's
// deployment, and of its task (task): each must answer as for a name nobody
// used to anyone outside team b.
func betaOperations(task string) []apiOperation {
	return []apiOperation{
		{http.MethodGet, "/api/v1/deployments/beta", nil},
		{http.MethodGet, "/api/v1/deployments/beta/drift", nil},
		{http.MethodGet, "/api/v1/deployments/beta/schedules", nil},
		{http.MethodGet, "/api/v1/deployments/beta/pods/beta-0/logs", nil},
		{http.MethodPost, "/api/v1/deployments/beta/stop", nil},
		{http.MethodPost, "/api/v1/deployments/beta/upgrade", map[string]any{"driver_version": "1.0.0"}},
		{http.MethodPost, "/api/v1/deployments/beta/actions/check", nil},
		{http.MethodDelete, "/api/v1/deployments/beta", nil},
		{http.MethodGet, "/api/v1/tasks/" + task, nil},
		{http.MethodPost, "/api/v1/tasks/" + task + "/cancel", nil},
	}
}

// teamToken returns a new API token of u narrowed to team.
func teamToken(t *testing.T, s teamsApp, u auth.User, team string) string {
	t.Helper()
	created, err := s.Deps.APITokens.CreateInTeam(context.Background(), auth.Credential{User: u}, "team "+team+" only", nil, team)
	require.NoError(t, err)
	return created.Secret
}

// teamOfDeployment returns the team GET /api/v1/deployments/{name} says.
func teamOfDeployment(t *testing.T, s teamsApp, token, name string) string {
	t.Helper()
	rec := s.Call(t, token, http.MethodGet, "/api/v1/deployments/"+name, nil)
	require.Equal(t, http.StatusOK, rec.Code, rec.Body.String())
	var d struct{ Team string }
	require.NoError(t, json.Unmarshal(rec.Body.Bytes(), &d))
	return d.Team
}

// listedDeployments returns the names GET /api/v1/deployments answers token.
func listedDeployments(t *testing.T, s teamsApp, token string) []string {
	t.Helper()
	rec := s.Call(t, token, http.MethodGet, "/api/v1/deployments", nil)
	require.Equal(t, http.StatusOK, rec.Code, rec.Body.String())
	var list struct{ Items []struct{ Name string } }
	require.NoError(t, json.Unmarshal(rec.Body.Bytes(), &list))
	names := []string{}
	for _, d := range list.Items {
		names = append(names, d.Name)
	}
	return names
}

// TestATokenNarrowedToATeamReachesNothingElse is the attack with a token
// narrowed to team a, of gus, an admin of his own who is operator in a:
// with it he reads, stops, upgrades, runs an action on, deletes and reads
// the tasks and logs of beta, team b's deployment, and its task by id: each
// is told beta does not exist (404), and beta has no new task. The admin
// operations refuse the token (403), its list shows a's deployment only, it
// deploys into a and nowhere else (into a when it names no team), and the
// tokens it makes are narrowed to a too. Without the narrowing, gus reaches
// everything.
func TestATokenNarrowedToATeamReachesNothingElse(t *testing.T) {
	t.Parallel()
	s := setupTeams(t)
	_, gus := s.As(t, "gus", auth.Admin)
	require.NoError(t, s.Deps.Teams.SetMember(context.Background(), "a", gus.ID, auth.Operator))
	token := teamToken(t, s, gus, "a")

	before := len(s.TasksOf(t, "beta"))
	task := fmt.Sprint(s.betaTask)
	for _, op := range betaOperations(task) {
		rec := s.Call(t, token, op.method, op.path, op.body)
		require.Equal(t, http.StatusNotFound, rec.Code, "%s %s: %s", op.method, op.path, rec.Body.String())
		require.Contains(t, rec.Body.String(), "There is no", "%s %s answers as for a name nobody used", op.method, op.path)
	}
	require.Len(t, s.TasksOf(t, "beta"), before, "nothing was queued on beta")

	for _, op := range []apiOperation{
		{http.MethodGet, "/api/v1/users", nil},
		{http.MethodPost, "/api/v1/users", map[string]any{"username": "mallory", "password": "a long enough password", "role": "admin"}},
		{http.MethodPatch, fmt.Sprintf("/api/v1/users/%d", gus.ID), map[string]any{"role": "admin"}},
		{http.MethodPut, "/api/v1/namespace-policy", map[string]any{"allowed": []string{"*"}, "create": true}},
	} {
		rec := s.Call(t, token, op.method, op.path, op.body)
		require.Equal(t, http.StatusForbidden, rec.Code, "%s %s: %s", op.method, op.path, rec.Body.String())
	}
	_, err := s.Users.GetByUsername(context.Background(), "mallory")
	require.Error(t, err, "no user was made")

	require.Equal(t, []string{"alpha"}, listedDeployments(t, s, token), "the token's list shows team a's deployments only")
	rec := s.Call(t, token, http.MethodPost, "/api/v1/deployments/alpha/stop", nil)
	require.Equal(t, http.StatusAccepted, rec.Code, "gus operates a's deployment with the token: %s", rec.Body.String())

	for team, why := range map[string]string{
		"b": "you may not deploy into the team b", "default": "you may not deploy into the team default",
	} {
		rec = s.Call(t, token, http.MethodPost, "/api/v1/deployments", map[string]any{
			"driver": "hello-web", "driver_version": "1.0.0", "name": "gus-" + team, "team": team,
		})
		require.Equal(t, http.StatusBadRequest, rec.Code, rec.Body.String())
		var problem struct{ Fields map[string]string }
		require.NoError(t, json.Unmarshal(rec.Body.Bytes(), &problem))
		require.Contains(t, problem.Fields["team"], why)
	}
	rec = s.Call(t, token, http.MethodPost, "/api/v1/deployments", map[string]any{
		"driver": "hello-web", "driver_version": "1.0.0", "name": "gus-a",
	})
	require.Equal(t, http.StatusAccepted, rec.Code, "an install naming no team goes into the token's: %s", rec.Body.String())
	require.Equal(t, "a", teamOfDeployment(t, s, token, "gus-a"))

	// A narrowed token cannot make a token wider than itself.
	rec = s.Call(t, token, http.MethodPost, "/api/v1/tokens", map[string]any{"name": "wider", "team": "b"})
	require.Equal(t, http.StatusBadRequest, rec.Code, rec.Body.String())
	require.Contains(t, rec.Body.String(), "This token acts in the team a only")
	rec = s.Call(t, token, http.MethodPost, "/api/v1/tokens", map[string]any{"name": "another"})
	require.Equal(t, http.StatusCreated, rec.Code, rec.Body.String())
	var made struct{ Token, Team string }
	require.NoError(t, json.Unmarshal(rec.Body.Bytes(), &made))
	require.Equal(t, "a", made.Team, "a token made by a narrowed token is narrowed to its team")
	require.Equal(t, []string{"alpha", "gus-a"}, listedDeployments(t, s, made.Token))
	rec = s.Call(t, made.Token, http.MethodGet, "/api/v1/users", nil)
	require.Equal(t, http.StatusForbidden, rec.Code)

	// gus's own token, not narrowed, reaches everything, as an admin.
	full := s.TokenOf(t, gus)
	require.ElementsMatch(t, []string{"alpha", "beta", "gus-a"}, listedDeployments(t, s, full))
	rec = s.Call(t, full, http.MethodGet, "/api/v1/deployments/beta", nil)
	require.Equal(t, http.StatusOK, rec.Code)

	rec = s.Call(t, full, http.MethodGet, "/api/v1/tokens", nil)
	require.Equal(t, http.StatusOK, rec.Code)
	var tokens struct{ Items []struct{ Name, Team string } }
	require.NoError(t, json.Unmarshal(rec.Body.Bytes(), &tokens))
	teamOf := map[string]string{}
	for _, tk := range tokens.Items {
		teamOf[tk.Name] = tk.Team
	}
	require.Equal(t, map[string]string{"team a only": "a", "another": "a", "test": ""}, teamOf, "the token list says which team each acts in")
}

// TestANarrowedTokenLosesItsReachWithItsTeam: amy's token narrowed to team
// a reads a's deployment until she leaves a; from then on it reaches
// nothing, as if alpha did not exist, and lists nothing.
func TestANarrowedTokenLosesItsReachWithItsTeam(t *testing.T) {
	t.Parallel()
	s := setupTeams(t)
	amy, err := s.Users.GetByUsername(context.Background(), "amy")
	require.NoError(t, err)
	token := teamToken(t, s, amy, "a")
	rec := s.Call(t, token, http.MethodGet, "/api/v1/deployments/alpha", nil)
	require.Equal(t, http.StatusOK, rec.Code, rec.Body.String())

	require.NoError(t, s.Deps.Teams.RemoveMember(context.Background(), "a", amy.ID))
	rec = s.Call(t, token, http.MethodGet, "/api/v1/deployments/alpha", nil)
	require.Equal(t, http.StatusNotFound, rec.Code, rec.Body.String())
	before := len(s.TasksOf(t, "alpha"))
	rec = s.Call(t, token, http.MethodPost, "/api/v1/deployments/alpha/stop", nil)
	require.Equal(t, http.StatusNotFound, rec.Code, rec.Body.String())
	require.Len(t, s.TasksOf(t, "alpha"), before)
}

// TestTheTokenPageNarrowsATokenToOneOfYourTeams: the form offers amy her
// team a; a team she is not in is refused at the field; the token made for
// a is listed with its team.
func TestTheTokenPageNarrowsATokenToOneOfYourTeams(t *testing.T) {
	t.Parallel()
	s := setupTeams(t)
	rec := s.Request(s.amy, http.MethodGet, "/account/tokens", nil)
	require.Equal(t, http.StatusOK, rec.Code)
	require.Equal(t, []string{"All my teams, with my role", "Team a only"}, handlerstest.Texts(handlerstest.Parse(t, rec).Find(`[data-testid="token-team"] option`)))

	rec = s.Request(s.amy, http.MethodPost, "/account/tokens", url.Values{"name": {"b bot"}, "team": {"b"}})
	require.Equal(t, http.StatusUnprocessableEntity, rec.Code)
	doc := handlerstest.Parse(t, rec)
	require.Contains(t, handlerstest.Text(doc.Find(`[data-testid="error-team"]`)), `You are in no team named "b"`)
	require.Equal(t, []string{"all teams"}, handlerstest.Texts(doc.Find(`[data-testid="tokens-table"] [data-testid="team"]`)), "no token was made: amy has her test token only")

	rec = s.Request(s.amy, http.MethodPost, "/account/tokens", url.Values{"name": {"a bot"}, "team": {"a"}})
	require.Equal(t, http.StatusOK, rec.Code, rec.Body.String())
	doc = handlerstest.Parse(t, rec)
	require.Equal(t, []string{"a", "all teams"}, handlerstest.Texts(doc.Find(`[data-testid="tokens-table"] [data-testid="team"]`)), "the new token, narrowed to a, then her test token")
}
