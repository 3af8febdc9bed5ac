package web_test

import (
	"context"
	"net/http"
	"net/url"
	"testing"

	"github.com/PuerkitoBio/goquery"
	"github.com/stretchr/testify/require"

	"github.com/styrmin/styrmin/auth"
	"github.com/styrmin/styrmin/handlers/handlerstest"
	"github.com/styrmin/styrmin/teams"
)

// TestTheTeamsPageListsTheTeamsAUserSees: an admin sees every team with
// its counts and the form to make one; amy, whose own role is member, sees
// her team only, with her role in it, and no form; a member of no team is
// told so.
func TestTheTeamsPageListsTheTeamsAUserSees(t *testing.T) {
	t.Parallel()
	a := handlerstest.Setup(t)
	ctx := context.Background()
	admin, _ := a.As(t, "root", auth.Admin)
	amy, amyUser := a.As(t, "amy", auth.Member)
	loner, _ := a.As(t, "lou", auth.Member)
	for _, name := range []string{"payments", "search"} {
		_, err := a.Deps.Teams.Create(ctx, name)
		require.NoError(t, err)
	}
	require.NoError(t, a.Deps.Teams.SetMember(ctx, "payments", amyUser.ID, auth.Operator))

	rec := a.Request(admin, http.MethodGet, "/teams", nil)
	require.Equal(t, http.StatusOK, rec.Code)
	doc := handlerstest.Parse(t, rec)
	require.Equal(t, "Teams", handlerstest.Text(doc.Find(`nav [aria-current="page"]`)))
	require.Equal(t, []string{"default", "payments", "search"}, handlerstest.Texts(doc.Find(`[data-testid="team-link"]`)))
	require.Equal(t, "1", handlerstest.Text(doc.Find(`[data-testid="team-payments"] [data-testid="members"]`)))
	require.NotEmpty(t, doc.Find(`[data-testid="new-team-form"]`).Nodes)

	rec = a.Request(amy, http.MethodGet, "/teams", nil)
	doc = handlerstest.Parse(t, rec)
	require.Equal(t, []string{"payments"}, handlerstest.Texts(doc.Find(`[data-testid="team-link"]`)))
	require.Equal(t, "operator", handlerstest.Text(doc.Find(`[data-testid="team-payments"] [data-testid="my-role"] [data-testid="role"]`)))
	require.Empty(t, doc.Find(`[data-testid="new-team-form"]`).Nodes, "only admins make teams")

	rec = a.Request(loner, http.MethodGet, "/teams", nil)
	require.NotEmpty(t, handlerstest.Parse(t, rec).Find(`[data-testid="no-teams"]`).Nodes)
}

// TestAnAdminMakesATeamAndABadNameIsSaidAtTheField: a made team's page
// follows; a bad or taken name is refused at the field, the form as typed.
func TestAnAdminMakesATeamAndABadNameIsSaidAtTheField(t *testing.T) {
	t.Parallel()
	a := handlerstest.Setup(t)
	admin, _ := a.As(t, "root", auth.Admin)

	rec := a.Request(admin, http.MethodPost, "/teams", url.Values{"name": {"payments"}})
	require.Equal(t, http.StatusSeeOther, rec.Code, rec.Body.String())
	require.Equal(t, "/teams/payments", rec.Header().Get("Location"))
	for name, why := range map[string]string{"Pay Ments": "Use lower-case letters", "payments": "This name is taken."} {
		rec = a.Request(admin, http.MethodPost, "/teams", url.Values{"name": {name}}, "HX-Request", "true")
		require.Equal(t, http.StatusUnprocessableEntity, rec.Code)
		doc := handlerstest.Parse(t, rec)
		require.Contains(t, handlerstest.Text(doc.Find(`[data-testid="error-name"]`)), why)
		require.Equal(t, name, doc.Find(`#new-team-name`).AttrOr("value", ""), "the form keeps what was typed")
	}
}

// teamPage is a team of a server with amy, its admin (her own role member),
// olga, a global operator, and rita, a global read-only user.
type teamPage struct {
	*handlerstest.App
	admin, amy, olga, rita handlerstest.Visitor
}

func setupTeamPage(t *testing.T) teamPage {
	t.Helper()
	a := handlerstest.Setup(t)
	s := teamPage{App: a}
	var amy auth.User
	s.admin, _ = a.As(t, "root", auth.Admin)
	s.amy, amy = a.As(t, "amy", auth.Member)
	s.olga, _ = a.As(t, "olga", auth.Operator)
	s.rita, _ = a.As(t, "rita", auth.ReadOnly)
	_, _ = a.As(t, "bob", auth.Member)
	_, err := a.Deps.Teams.Create(context.Background(), "payments")
	require.NoError(t, err)
	require.NoError(t, a.Deps.Teams.SetMember(context.Background(), "payments", amy.ID, auth.Admin))
	return s
}

// members are the team's members as "username role".
func (s teamPage) members(t *testing.T) []string {
	t.Helper()
	list, err := s.Deps.Teams.Members(context.Background(), "payments")
	require.NoError(t, err)
	var out []string
	for _, m := range list {
		out = append(out, m.Username+" "+m.Role.String())
	}
	return out
}

// TestATeamsAdminManagesItsMembersOnItsPage: amy, the team's admin, adds
// bob, changes his role and removes him, each answered with the page itself
// for htmx (no reload); an unknown user or role is said at the field.
func TestATeamsAdminManagesItsMembersOnItsPage(t *testing.T) {
	t.Parallel()
	s := setupTeamPage(t)
	rec := s.Request(s.amy, http.MethodGet, "/teams/payments", nil)
	require.Equal(t, http.StatusOK, rec.Code)
	doc := handlerstest.Parse(t, rec)
	require.NotEmpty(t, doc.Find(`[data-testid="new-member-form"]`).Nodes, "a team's admin manages its members")
	require.Empty(t, doc.Find(`[data-testid="team-policy-form"]`).Nodes, "but only admins its policy")
	require.NotEmpty(t, doc.Find(`[data-testid="team-policy-facts"]`).Nodes, "which she reads")

	rec = s.Request(s.amy, http.MethodPost, "/teams/payments/members", url.Values{"username": {"bob"}, "role": {"operator"}}, "HX-Request", "true")
	require.Equal(t, http.StatusOK, rec.Code, rec.Body.String())
	doc = handlerstest.Parse(t, rec)
	require.Contains(t, handlerstest.Text(doc.Find(`[data-testid="flash"]`)), "bob is operator in the team payments.")
	require.NotEmpty(t, doc.Find(`[data-testid="member-bob"]`).Nodes, "the answer is the page with bob in it")
	rec = s.Request(s.amy, http.MethodPost, "/teams/payments/members", url.Values{"username": {"bob"}, "role": {"read-only"}}, "HX-Request", "true")
	require.Equal(t, http.StatusOK, rec.Code)
	require.Equal(t, []string{"amy admin", "bob read-only"}, s.members(t))

	for form, field := range map[*url.Values]string{
		{"username": {"nobody"}, "role": {"operator"}}: "error-username",
		{"username": {"bob"}, "role": {"member"}}:      "error-role",
	} {
		rec = s.Request(s.amy, http.MethodPost, "/teams/payments/members", *form, "HX-Request", "true")
		require.Equal(t, http.StatusUnprocessableEntity, rec.Code)
		require.NotEmpty(t, handlerstest.Text(handlerstest.Parse(t, rec).Find(`[data-testid="`+field+`"]`)), "%v", *form)
	}

	rec = s.Request(s.amy, http.MethodPost, "/teams/payments/members/bob/remove", url.Values{})
	require.Equal(t, http.StatusSeeOther, rec.Code, rec.Body.String())
	require.Equal(t, []string{"amy admin"}, s.members(t))
}

// TestOnlyAdminsAndTheTeamsAdminsChangeATeam: crafted requests of a global
// read-only user, a global operator and a team operator change nothing: the
// first two are refused (403: they may know the team); bob, outside the
// team, is told it does not exist; none but an admin sets its policy,
// deletes it or moves a deployment.
func TestOnlyAdminsAndTheTeamsAdminsChangeATeam(t *testing.T) {
	t.Parallel()
	s := setupTeamPage(t)
	bob := s.SignInByForm(t, "bob")
	_, carl := s.As(t, "carl", auth.Member)
	require.NoError(t, s.Deps.Teams.SetMember(context.Background(), "payments", carl.ID, auth.Operator))
	carlV := s.SignInByForm(t, "carl")
	changes := []struct {
		path string
		form url.Values
	}{
		{"/teams/payments/members", url.Values{"username": {"bob"}, "role": {"admin"}}},
		{"/teams/payments/members/amy/remove", url.Values{}},
		{"/teams/payments/policy", url.Values{"max_deployments": {"0"}}},
		{"/teams/payments/delete", url.Values{}},
		{"/teams", url.Values{"name": {"mine"}}},
	}
	for _, c := range changes {
		for who, v := range map[string]handlerstest.Visitor{"rita (read-only)": s.rita, "olga (operator)": s.olga, "carl (operator in the team)": carlV} {
			rec := s.Request(v, http.MethodPost, c.path, c.form)
			require.Equal(t, http.StatusForbidden, rec.Code, "%s: %s", who, c.path)
		}
		rec := s.Request(bob, http.MethodPost, c.path, c.form)
		if c.path == "/teams/payments/members" || c.path == "/teams/payments/members/amy/remove" {
			require.Equal(t, http.StatusNotFound, rec.Code, "to bob, outside it, the team does not exist")
			require.Contains(t, rec.Body.String(), "There is no team named payments.")
		} else {
			require.Equal(t, http.StatusForbidden, rec.Code, c.path)
		}
	}
	rec := s.Request(bob, http.MethodGet, "/teams/payments", nil)
	require.Equal(t, http.StatusNotFound, rec.Code)
	rec = s.Request(s.rita, http.MethodGet, "/teams/payments", nil)
	require.Equal(t, http.StatusOK, rec.Code, "a read-only user reads every team, as an auditor")
	require.Empty(t, handlerstest.Parse(t, rec).Find(`[data-testid="new-member-form"]`).Nodes)
	require.Equal(t, []string{"amy admin", "carl operator"}, s.members(t), "nothing changed")
	team, err := s.Deps.Teams.Get(context.Background(), "payments")
	require.NoError(t, err)
	require.Equal(t, teams.Policy{}, team.Policy)
}

// TestAnAdminSetsATeamsPolicyOnItsPage: limits written as Kubernetes
// quantities are kept as numbers and shown back so; one that cannot be read
// is refused at its field, the form kept as typed.
func TestAnAdminSetsATeamsPolicyOnItsPage(t *testing.T) {
	t.Parallel()
	s := setupTeamPage(t)
	rec := s.Request(s.admin, http.MethodPost, "/teams/payments/policy", url.Values{
		"namespaces": {"pay-*\n\npay\n"}, "drivers": {""}, "max_deployments": {"3"}, "max_cpu_millis": {"1500m"}, "max_memory_bytes": {"4Gi"},
	}, "HX-Request", "true")
	require.Equal(t, http.StatusOK, rec.Code, rec.Body.String())
	team, err := s.Deps.Teams.Get(context.Background(), "payments")
	require.NoError(t, err)
	three, cpu, mem := int64(3), int64(1500), int64(4<<30)
	require.Equal(t, teams.Policy{Namespaces: []string{"pay-*", "pay"}, MaxDeployments: &three, MaxCPUMillis: &cpu, MaxMemoryBytes: &mem}, team.Policy)
	doc := handlerstest.Parse(t, rec)
	require.Equal(t, "1500m", doc.Find(`#policy-cpu`).AttrOr("value", ""))
	require.Equal(t, "4Gi", doc.Find(`#policy-memory`).AttrOr("value", ""))

	rec = s.Request(s.admin, http.MethodPost, "/teams/payments/policy", url.Values{"max_deployments": {"many"}, "max_memory_bytes": {"lots"}}, "HX-Request", "true")
	require.Equal(t, http.StatusUnprocessableEntity, rec.Code)
	doc = handlerstest.Parse(t, rec)
	require.Contains(t, handlerstest.Text(doc.Find(`[data-testid="error-max_deployments"]`)), "whole number")
	require.Contains(t, handlerstest.Text(doc.Find(`[data-testid="error-max_memory_bytes"]`)), "memory")
	require.Equal(t, "many", doc.Find(`#policy-max-deployments`).AttrOr("value", ""))
	team, err = s.Deps.Teams.Get(context.Background(), "payments")
	require.NoError(t, err)
	require.Equal(t, &three, team.Policy.MaxDeployments, "the refused form changed nothing")
}

// TestAnAdminMovesADeploymentFromItsPage: the page says the deployment's
// team, and offers an admin (never the admin of its team) the other teams;
// after the move, the old team's admin gets the 404 of an unknown name and
// the new team's operator reads it, beside beta, b's own.
func TestAnAdminMovesADeploymentFromItsPage(t *testing.T) {
	t.Parallel()
	d := handlerstest.SetupDeployments(t)
	ctx := context.Background()
	d.TwoTeams(t)
	amy, amyUser := d.As(t, "amy", auth.Member)
	bob, bobUser := d.As(t, "bob", auth.Member)
	admin, _ := d.As(t, "root", auth.Admin)
	require.NoError(t, d.Deps.Teams.SetMember(ctx, "a", amyUser.ID, auth.Admin))
	require.NoError(t, d.Deps.Teams.SetMember(ctx, "b", bobUser.ID, auth.Operator))

	rec := d.Request(admin, http.MethodGet, "/deployments/alpha", nil)
	doc := handlerstest.Parse(t, rec)
	require.Equal(t, "a", handlerstest.Text(doc.Find(`[data-testid="deployment-team"]`)))
	require.Equal(t, []string{"b", "default"}, handlerstest.Texts(doc.Find(`[data-testid="move-team-select"] option`)))
	rec = d.Request(amy, http.MethodGet, "/deployments/alpha", nil)
	require.Empty(t, handlerstest.Parse(t, rec).Find(`[data-testid="deployment-move"]`).Nodes, "the admin of alpha's team is offered no move")
	for _, v := range []handlerstest.Visitor{amy, d.Operator} {
		rec = d.Request(v, http.MethodPost, "/deployments/alpha/move", url.Values{"team": {"b"}})
		require.Equal(t, http.StatusForbidden, rec.Code)
	}

	rec = d.Request(admin, http.MethodPost, "/deployments/alpha/move", url.Values{"team": {"b"}})
	require.Equal(t, http.StatusSeeOther, rec.Code, rec.Body.String())
	require.Equal(t, http.StatusNotFound, d.Request(amy, http.MethodGet, "/deployments/alpha", nil).Code, "alpha left amy's team")
	rec = d.Request(bob, http.MethodGet, "/deployments", nil)
	doc = handlerstest.Parse(t, rec)
	require.Equal(t, []string{"alpha", "beta"}, handlerstest.Texts(doc.Find(`[data-testid="deployment-link"]`)))
	require.Equal(t, []string{"b", "b"}, handlerstest.Texts(doc.Find(`td[data-testid="deployment-team"]`)), "the list says each one's team")
}

// TestATeamsPolicyMayAllowEveryDriverSomeOrNone: the policy form chooses
// every driver, those listed, or no driver at all (which an empty list
// cannot say: it is every driver), and shows the choice back; a list chosen
// without a driver is refused at the field. Team members read the choice.
func TestATeamsPolicyMayAllowEveryDriverSomeOrNone(t *testing.T) {
	t.Parallel()
	s := setupTeamPage(t)
	save := func(form url.Values) *goquery.Document {
		t.Helper()
		rec := s.Request(s.admin, http.MethodPost, "/teams/payments/policy", form, "HX-Request", "true")
		require.Equal(t, http.StatusOK, rec.Code, rec.Body.String())
		return handlerstest.Parse(t, rec)
	}
	policy := func() teams.Policy {
		t.Helper()
		team, err := s.Deps.Teams.Get(context.Background(), "payments")
		require.NoError(t, err)
		return team.Policy
	}
	doc := handlerstest.Parse(t, s.Request(s.admin, http.MethodGet, "/teams/payments", nil))
	require.True(t, doc.Find(`[data-testid="drivers-every"]`).Is(`[checked]`), "a new team may deploy every driver")

	doc = save(url.Values{"drivers_rule": {"none"}, "drivers": {"redis"}})
	require.Equal(t, []string{}, policy().Drivers, "no driver at all, whatever the list holds")
	require.True(t, doc.Find(`[data-testid="drivers-none"]`).Is(`[checked]`))
	facts := handlerstest.Parse(t, s.Request(s.amy, http.MethodGet, "/teams/payments", nil)).Find(`[data-testid="team-policy-facts"] dd`)
	require.Equal(t, "no driver: the team deploys nothing", handlerstest.Text(facts.Eq(1)), "the team's admin reads it")

	doc = save(url.Values{"drivers_rule": {"listed"}, "drivers": {"redis\nlabel:category=database\n"}})
	require.Equal(t, []string{"redis", "label:category=database"}, policy().Drivers)
	require.True(t, doc.Find(`[data-testid="drivers-listed"]`).Is(`[checked]`))
	require.Equal(t, "redis\nlabel:category=database", doc.Find(`#policy-drivers`).Text())

	save(url.Values{"drivers_rule": {"every"}, "drivers": {"redis"}})
	require.Nil(t, policy().Drivers, "every driver: no rule of the team's own")
	save(url.Values{"drivers": {"redis"}})
	require.Equal(t, []string{"redis"}, policy().Drivers, "without a choice, the list, as before it")

	for rule, why := range map[string]string{"listed": "List at least one driver", "some": "Choose every driver, only those listed, or no driver."} {
		rec := s.Request(s.admin, http.MethodPost, "/teams/payments/policy", url.Values{"drivers_rule": {rule}, "drivers": {"\n"}}, "HX-Request", "true")
		require.Equal(t, http.StatusUnprocessableEntity, rec.Code)
		require.Contains(t, handlerstest.Text(handlerstest.Parse(t, rec).Find(`[data-testid="error-drivers"]`)), why)
	}
	require.Equal(t, []string{"redis"}, policy().Drivers, "the refused forms changed nothing")
}
