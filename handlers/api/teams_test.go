package api_test

import (
	"context"
	"encoding/json"
	"net/http"
	"testing"

	"github.com/stretchr/testify/require"

	oapi "github.com/styrmin/styrmin/api"
	"github.com/styrmin/styrmin/audit"
	"github.com/styrmin/styrmin/auth"
	"github.com/styrmin/styrmin/handlers/handlerstest"
)

// decode reads an answer's JSON body into a value of T.
func decode[T any](t *testing.T, body []byte) T {
	t.Helper()
	var v T
	require.NoError(t, json.Unmarshal(body, &v))
	return v
}

// teamActions are the audit log's entries about teams, as "action target outcome".
func teamActions(t *testing.T, a *handlerstest.App, kind string) []string {
	t.Helper()
	page, err := a.Audit.List(context.Background(), audit.Viewer{Admin: true}, audit.Filter{TargetKind: kind})
	require.NoError(t, err)
	var seen []string
	for _, e := range page.Entries {
		seen = append(seen, e.Action+" "+e.Target.Name+" "+string(e.Outcome))
	}
	return seen
}

// TestAPIManagesTeamsAndTheirMembers walks a team's life through the API: an
// admin makes it (a bad or taken name refused at the field) and makes amy its
// admin; amy, whose own role is member, manages its members but neither its
// policy nor its deletion; a user outside the team is told it does not
// exist; a global read-only user reads every team. Every change is audited
// as the command line audits it.
func TestAPIManagesTeamsAndTheirMembers(t *testing.T) {
	t.Parallel()
	a := handlerstest.Setup(t)
	admin := a.TokenFor(t, "root", auth.Admin)
	_, amyUser := a.As(t, "amy", auth.Member)
	amy := a.TokenOf(t, amyUser)
	rob := a.TokenFor(t, "rob", auth.Member)
	reader := a.TokenFor(t, "rita", auth.ReadOnly)
	operator := a.TokenFor(t, "olga", auth.Operator)

	rec := a.Call(t, admin, http.MethodPost, "/api/v1/teams", oapi.NewTeam{Name: "Payments"})
	require.Equal(t, http.StatusBadRequest, rec.Code, rec.Body.String())
	require.Contains(t, *decode[oapi.Problem](t, rec.Body.Bytes()).Fields, "name")
	rec = a.Call(t, admin, http.MethodPost, "/api/v1/teams", oapi.NewTeam{Name: "payments"})
	require.Equal(t, http.StatusCreated, rec.Code, rec.Body.String())
	require.Equal(t, "payments", decode[oapi.TeamDetail](t, rec.Body.Bytes()).Name)
	rec = a.Call(t, admin, http.MethodPost, "/api/v1/teams", oapi.NewTeam{Name: "payments"})
	require.Equal(t, http.StatusConflict, rec.Code)
	rec = a.Call(t, operator, http.MethodPost, "/api/v1/teams", oapi.NewTeam{Name: "ops"})
	require.Equal(t, http.StatusForbidden, rec.Code, "only admins make teams")

	rec = a.Call(t, admin, http.MethodPut, "/api/v1/teams/payments/members/amy", map[string]any{"role": "admin"})
	require.Equal(t, http.StatusOK, rec.Code, rec.Body.String())
	rec = a.Call(t, amy, http.MethodPut, "/api/v1/teams/payments/members/rob", map[string]any{"role": "operator"})
	require.Equal(t, http.StatusOK, rec.Code, "a team's admin adds members: %s", rec.Body.String())
	rec = a.Call(t, amy, http.MethodPut, "/api/v1/teams/payments/members/rob", map[string]any{"role": "read-only"})
	require.Equal(t, http.StatusOK, rec.Code, rec.Body.String())
	team := decode[oapi.TeamDetail](t, rec.Body.Bytes())
	require.Equal(t, []oapi.TeamMember{{Username: "amy", Role: "admin", UserRole: "member"}, {Username: "rob", Role: "read-only", UserRole: "member"}}, team.MemberList)
	require.Equal(t, oapi.TeamRole("admin"), *team.Role, "the answer says the caller's role in the team")
	rec = a.Call(t, amy, http.MethodPut, "/api/v1/teams/payments/members/nobody", map[string]any{"role": "operator"})
	require.Equal(t, http.StatusNotFound, rec.Code)
	require.Contains(t, rec.Body.String(), `There is no user named \"nobody\".`)

	for what, call := range map[string]func(token string) int{
		"add a member": func(tok string) int {
			return a.Call(t, tok, http.MethodPut, "/api/v1/teams/payments/members/olga", map[string]any{"role": "admin"}).Code
		},
		"remove amy": func(tok string) int {
			return a.Call(t, tok, http.MethodDelete, "/api/v1/teams/payments/members/amy", nil).Code
		},
		"set the policy": func(tok string) int {
			return a.Call(t, tok, http.MethodPatch, "/api/v1/teams/payments", oapi.TeamPolicy{}).Code
		},
		"delete it": func(tok string) int { return a.Call(t, tok, http.MethodDelete, "/api/v1/teams/payments", nil).Code },
	} {
		require.Equal(t, http.StatusForbidden, call(reader), "a read-only user may not %s", what)
		require.Equal(t, http.StatusForbidden, call(operator), "an operator may not %s", what)
		outsider := a.TokenFor(t, "mo-"+what[:3], auth.Member)
		if what == "add a member" || what == "remove amy" {
			require.Equal(t, http.StatusNotFound, call(outsider), "to a member of no team, the team does not exist (%s)", what)
		} else {
			require.Equal(t, http.StatusForbidden, call(outsider), "a member may not %s (refused before the team is read)", what)
		}
	}
	require.Equal(t, http.StatusForbidden, a.Call(t, rob, http.MethodPut, "/api/v1/teams/payments/members/rob", map[string]any{"role": "admin"}).Code,
		"rob, read-only in the team, may not raise himself")
	require.Equal(t, http.StatusForbidden, a.Call(t, amy, http.MethodPatch, "/api/v1/teams/payments", oapi.TeamPolicy{}).Code, "a team's admin may not set its policy")
	require.Equal(t, http.StatusForbidden, a.Call(t, amy, http.MethodDelete, "/api/v1/teams/payments", nil).Code, "nor delete it")

	rec = a.Call(t, amy, http.MethodDelete, "/api/v1/teams/payments/members/rob", nil)
	require.Equal(t, http.StatusNoContent, rec.Code, rec.Body.String())
	rec = a.Call(t, rob, http.MethodGet, "/api/v1/teams/payments", nil)
	require.Equal(t, http.StatusNotFound, rec.Code, "rob is no longer in the team: it does not exist for him")
	require.Contains(t, rec.Body.String(), "There is no team named payments.")
	rec = a.Call(t, rob, http.MethodGet, "/api/v1/teams", nil)
	require.Empty(t, decode[struct{ Items []oapi.Team }](t, rec.Body.Bytes()).Items)
	rec = a.Call(t, amy, http.MethodGet, "/api/v1/teams", nil)
	listed := decode[struct{ Items []oapi.Team }](t, rec.Body.Bytes()).Items
	require.Len(t, listed, 1, "amy sees her team only")
	require.Equal(t, "payments", listed[0].Name)
	require.Equal(t, oapi.TeamRole("admin"), *listed[0].Role)
	require.EqualValues(t, 1, listed[0].Members)
	rec = a.Call(t, reader, http.MethodGet, "/api/v1/teams", nil)
	var names []string
	for _, team := range decode[struct{ Items []oapi.Team }](t, rec.Body.Bytes()).Items {
		names = append(names, team.Name)
		require.Nil(t, team.Role, "rita belongs to no team")
	}
	require.Equal(t, []string{"default", "payments"}, names, "a read-only user sees every team, as an auditor")
	require.Equal(t, http.StatusOK, a.Call(t, reader, http.MethodGet, "/api/v1/teams/payments", nil).Code)

	three := int64(3)
	rec = a.Call(t, admin, http.MethodPatch, "/api/v1/teams/payments", oapi.TeamPolicy{Namespaces: &[]string{"pay-*"}, MaxDeployments: &three})
	require.Equal(t, http.StatusOK, rec.Code, rec.Body.String())
	rec = a.Call(t, amy, http.MethodGet, "/api/v1/teams/payments", nil)
	policy := decode[oapi.TeamDetail](t, rec.Body.Bytes()).Policy
	require.Equal(t, oapi.TeamPolicy{Namespaces: &[]string{"pay-*"}, MaxDeployments: &three}, policy, "no drivers rule: every driver")
	rec = a.Call(t, admin, http.MethodPatch, "/api/v1/teams/nowhere", oapi.TeamPolicy{})
	require.Equal(t, http.StatusNotFound, rec.Code)

	rec = a.Call(t, admin, http.MethodDelete, "/api/v1/teams/payments", nil)
	require.Equal(t, http.StatusNoContent, rec.Code, rec.Body.String())
	rec = a.Call(t, admin, http.MethodDelete, "/api/v1/teams/default", nil)
	require.Equal(t, http.StatusConflict, rec.Code)

	seen := teamActions(t, a, audit.TargetTeam)
	require.Subset(t, seen, []string{
		"team.create payments allowed", "team.create payments refused", "team.update payments allowed",
		"team.update payments refused", "team.delete payments allowed", "team.delete default refused",
	})
}

// TestAPIMovesADeploymentToAnotherTeam: an admin moves alpha from team a to
// team b (audited as deployment.move); amy, admin of a, then gets the 404 of
// an unknown name, and bob, operator in b, reads it, its team said in the
// read and the list (beside beta, b's own). Neither may move it back, nor
// may a global operator.
func TestAPIMovesADeploymentToAnotherTeam(t *testing.T) {
	t.Parallel()
	d := handlerstest.SetupDeployments(t)
	ctx := context.Background()
	d.TwoTeams(t)
	_, amyUser := d.As(t, "amy", auth.Member)
	_, bobUser := d.As(t, "bob", auth.Member)
	require.NoError(t, d.Deps.Teams.SetMember(ctx, "a", amyUser.ID, auth.Admin))
	require.NoError(t, d.Deps.Teams.SetMember(ctx, "b", bobUser.ID, auth.Operator))
	amy, bob, admin := d.TokenOf(t, amyUser), d.TokenOf(t, bobUser), d.TokenFor(t, "root", auth.Admin)
	rec := d.Call(t, amy, http.MethodGet, "/api/v1/deployments/alpha", nil)
	require.Equal(t, http.StatusOK, rec.Code)
	require.Equal(t, "a", decode[oapi.Deployment](t, rec.Body.Bytes()).Team)

	for who, token := range map[string]string{"amy, admin of alpha's team": amy, "a global operator": d.TokenFor(t, "oscar", auth.Operator)} {
		rec = d.Call(t, token, http.MethodPost, "/api/v1/deployments/alpha/move", map[string]any{"team": "b"})
		require.Equal(t, http.StatusForbidden, rec.Code, "%s may not move a deployment", who)
	}
	rec = d.Call(t, admin, http.MethodPost, "/api/v1/deployments/alpha/move", map[string]any{"team": "nowhere"})
	require.Equal(t, http.StatusNotFound, rec.Code)
	require.Contains(t, rec.Body.String(), "There is no team named nowhere.")
	rec = d.Call(t, admin, http.MethodPost, "/api/v1/deployments/alpha/move", map[string]any{"team": "b"})
	require.Equal(t, http.StatusOK, rec.Code, rec.Body.String())
	require.Equal(t, "b", decode[oapi.DeploymentSummary](t, rec.Body.Bytes()).Team)

	rec = d.Call(t, amy, http.MethodGet, "/api/v1/deployments/alpha", nil)
	require.Equal(t, http.StatusNotFound, rec.Code, "alpha left amy's team: it does not exist for her")
	rec = d.Call(t, bob, http.MethodGet, "/api/v1/deployments/alpha", nil)
	require.Equal(t, http.StatusOK, rec.Code, "bob's team holds alpha now")
	rec = d.Call(t, bob, http.MethodGet, "/api/v1/deployments", nil)
	teamOf := map[string]string{}
	for _, item := range decode[oapi.DeploymentPage](t, rec.Body.Bytes()).Items {
		teamOf[item.Name] = item.Team
	}
	require.Equal(t, map[string]string{"alpha": "b", "beta": "b"}, teamOf, "the list says each deployment's team")
	require.Equal(t, []string{"deployment.move alpha refused", "deployment.move alpha refused", "deployment.move alpha refused", "deployment.move alpha allowed"},
		reversed(teamActions(t, d.App, audit.TargetDeployment), "deployment.move"))
}

// reversed is the entries of an action, oldest first.
func reversed(entries []string, action string) []string {
	var out []string
	for _, e := range entries {
		if len(e) > len(action) && e[:len(action)+1] == action+" " {
			out = append([]string{e}, out...)
		}
	}
	return out
}

// TestMeSaysTheTeamsTheTokenActsIn: amy's plain token acts in all her teams
// and names none of them its own; a token she narrowed to payments says so
// and acts there only, with her role there; once she left payments it still
// names its team, but acts in none.
func TestMeSaysTheTeamsTheTokenActsIn(t *testing.T) {
	t.Parallel()
	a := handlerstest.Setup(t)
	ctx := context.Background()
	_, amy := a.As(t, "amy", auth.Member)
	for team, role := range map[string]auth.Role{"payments": auth.Operator, "search": auth.ReadOnly} {
		_, err := a.Deps.Teams.Create(ctx, team)
		require.NoError(t, err)
		require.NoError(t, a.Deps.Teams.SetMember(ctx, team, amy.ID, role))
	}
	plain := a.TokenOf(t, amy)
	narrowed, err := a.Deps.APITokens.CreateInTeam(ctx, auth.Credential{User: amy}, "payments only", nil, "payments")
	require.NoError(t, err)

	me := decode[oapi.Me](t, a.Call(t, plain, http.MethodGet, "/api/v1/me", nil).Body.Bytes())
	require.Equal(t, "amy", me.Username)
	require.Nil(t, me.Team, "a plain token is narrowed to no team")
	require.Equal(t, []oapi.Membership{{Team: "payments", Role: "operator"}, {Team: "search", Role: "read-only"}}, me.Teams)

	rec := a.Call(t, narrowed.Secret, http.MethodGet, "/api/v1/me", nil)
	require.Equal(t, http.StatusOK, rec.Code, rec.Body.String())
	me = decode[oapi.Me](t, rec.Body.Bytes())
	require.Equal(t, "payments", *me.Team)
	require.Equal(t, oapi.Role("member"), me.Role, "a narrowed token has no role of its own")
	require.Equal(t, []oapi.Membership{{Team: "payments", Role: "operator"}}, me.Teams, "it acts in its team only")

	require.NoError(t, a.Deps.Teams.RemoveMember(ctx, "payments", amy.ID))
	rec = a.Call(t, narrowed.Secret, http.MethodGet, "/api/v1/me", nil)
	me = decode[oapi.Me](t, rec.Body.Bytes())
	require.Equal(t, "payments", *me.Team)
	require.Contains(t, rec.Body.String(), `"teams":[]`, "amy left payments: the token acts in no team")
}
