package cli_test

import (
	"context"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/styrmin/styrmin/api/client"
	"github.com/styrmin/styrmin/auth"
	"github.com/styrmin/styrmin/cli"
	"github.com/styrmin/styrmin/handlers/handlerstest"
)

// TestAnOperatorOfOneTeamCannotReachAnotherTeamsDeploymentFromTheCommandLine
// is the attack through the client: amy, an operator in team a, reads,
// stops, upgrades, runs an action on, deletes and reads the logs, schedules
// and task of beta, team b's deployment. Each command exits as for a
// deployment that does not exist (ExitNotFound), beta has no new task, and
// her list shows her team's deployment only.
func TestAnOperatorOfOneTeamCannotReachAnotherTeamsDeploymentFromTheCommandLine(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	d, url := served(t)
	beta := d.TwoTeams(t)
	_, amy := d.As(t, "amy", auth.Member)
	require.NoError(t, d.Deps.Teams.SetMember(ctx, "a", amy.ID, auth.Operator))
	op := as(t, url, d.TokenOf(t, amy))
	before := len(d.TasksOf(t, "beta"))

	for _, args := range [][]string{
		{"deployments", "get", "beta"},
		{"stop", "beta"},
		{"start", "beta"},
		{"upgrade", "beta", "--version", "1.0.0"},
		{"run-action", "beta", "check"},
		{"delete", "beta"},
		{"logs", "beta", "beta-0"},
		{"schedules", "list", "beta"},
		{"artefacts", "beta"},
		{"tasks", "get", itoa(beta.TaskID)},
	} {
		r := op.run(t, "", args...)
		require.Equal(t, cli.ExitNotFound, r.code, "styrmin %v: %s", args, r.err)
	}
	require.Len(t, d.TasksOf(t, "beta"), before, "nothing was queued on beta")
	list := jsonOf[[]client.DeploymentSummary](t, op.ok(t, "deployments", "list", "-o", "json"))
	require.Len(t, list, 1)
	require.Equal(t, "alpha", list[0].Name)
}

// TestTeamsAreManagedFromTheCommandLine walks a team's life through the
// client: an admin makes payments and makes amy its admin; amy, whose own
// role is member, adds rob and takes him out again, but sets no policy and
// moves nothing; a global read-only user reads the team and changes nothing,
// told so in the API's words; to rob, outside it, search does not exist.
func TestTeamsAreManagedFromTheCommandLine(t *testing.T) {
	t.Parallel()
	d, url := served(t)
	d.Install(t, handlerstest.HelloInstall("alpha"))
	admin := as(t, url, d.TokenFor(t, "ada", auth.Admin))
	_, amyUser := d.As(t, "amy", auth.Member)
	amy := as(t, url, d.TokenOf(t, amyUser))
	_, robUser := d.As(t, "rob", auth.Member)
	rob := as(t, url, d.TokenOf(t, robUser))
	reader := as(t, url, d.TokenFor(t, "reed", auth.ReadOnly))

	r := admin.run(t, "", "teams", "create", "Payments")
	require.Equal(t, cli.ExitRefused, r.code, r.err)
	require.Contains(t, r.err, `"Payments" is not a team name`)
	require.Equal(t, "Made team payments; add its members: styrmin teams add payments USER ROLE\n", admin.ok(t, "teams", "create", "payments"))
	require.Equal(t, "search", jsonOf[client.TeamDetail](t, admin.ok(t, "teams", "create", "search", "-o", "json")).Name)
	require.Equal(t, "amy is admin in team payments.\n", admin.ok(t, "teams", "add", "payments", "amy", "admin"))

	require.Equal(t, "rob is operator in team payments.\n", amy.ok(t, "teams", "add", "payments", "rob", "operator"), "a team's admin adds a member")
	r = amy.run(t, "", "teams", "add", "payments", "rob", "member")
	require.Equal(t, cli.ExitRefused, r.code)
	require.Contains(t, r.err, "\n  role: value is not one of the allowed values [\"read-only\",\"operator\",\"admin\"]", "the API's words, at the field")
	r = amy.run(t, "", "teams", "add", "payments", "nobody", "operator")
	require.Equal(t, cli.ExitNotFound, r.code)
	require.Contains(t, r.err, `There is no user named "nobody".`)
	r = reader.run(t, "", "teams", "add", "payments", "reed", "admin")
	require.Equal(t, cli.ExitRefused, r.code, "a read-only user changes no team: %s", r.err)
	require.Contains(t, r.err, "needs the admin role")
	for _, args := range [][]string{{"teams", "policy", "payments", "--max-deployments", "1"}, {"teams", "move", "alpha", "payments"}, {"teams", "delete", "search"}} {
		r = amy.run(t, "", args...)
		require.Equal(t, cli.ExitRefused, r.code, "styrmin %v: only admins", args)
		require.Contains(t, r.err, "needs the admin role", "styrmin %v", args)
	}

	table := reader.ok(t, "teams", "show", "payments")
	require.Regexp(t, `(?m)^Name:\s+payments$`, table, "a read-only user reads every team")
	require.Regexp(t, `(?m)^Your role:\s+-$`, table)
	require.Regexp(t, `(?m)^Policy, drivers:\s+every driver$`, table)
	require.Regexp(t, `(?m)^USER\s+ROLE IN TEAM\s+OWN ROLE\namy\s+admin\s+member\nrob\s+operator\s+member$`, table)
	require.Regexp(t, `(?m)^TEAM\s+MEMBERS\s+DEPLOYMENTS\s+YOUR ROLE\ndefault\s+0\s+1\s+-\npayments\s+2\s+0\s+-\nsearch\s+0\s+0\s+-$`, reader.ok(t, "teams", "list"))
	mine := jsonOf[[]client.Team](t, rob.ok(t, "teams", "list", "-o", "json"))
	require.Len(t, mine, 1, "a member lists their own teams")
	require.Equal(t, client.TeamRole("operator"), *mine[0].Role)
	for _, args := range [][]string{{"teams", "show", "search"}, {"teams", "policy", "search"}} {
		r = rob.run(t, "", args...)
		require.Equal(t, cli.ExitNotFound, r.code, "styrmin %v", args)
		require.Contains(t, r.err, "There is no team named search.", "to rob, outside it, search does not exist")
	}
	r = amy.run(t, "", "teams", "add", "search", "rob", "operator")
	require.Equal(t, cli.ExitNotFound, r.code)
	require.Contains(t, r.err, "There is no team named search.")

	require.Equal(t, "rob is no longer a member of team payments.\n", amy.ok(t, "teams", "remove", "payments", "rob"))
	require.Equal(t, "Deployment alpha is in team payments.\n", admin.ok(t, "teams", "move", "alpha", "payments"))
	moved := jsonOf[[]client.DeploymentSummary](t, amy.ok(t, "deployments", "list", "-o", "json"))
	require.Len(t, moved, 1, "amy now sees alpha, in her team")
	require.Equal(t, "payments", moved[0].Team)
	r = admin.run(t, "", "teams", "delete", "payments")
	require.Equal(t, cli.ExitRefused, r.code)
	require.Contains(t, r.err, "holds deployments")
	require.Equal(t, "Deleted team search.\n", admin.ok(t, "teams", "delete", "search"))
	require.Equal(t, cli.ExitNotFound, admin.run(t, "", "teams", "show", "search").code)
	require.Equal(t, cli.ExitUsage, admin.run(t, "", "teams", "add", "payments", "rob").code)
}

// TestATeamsPolicyIsShownAndSetRuleByRuleFromTheCommandLine: the client's
// teams policy takes the flags and words of the server's team policy; each
// flag replaces one rule and keeps the others, "" for drivers allows none,
// a quota it cannot read is refused before anything is sent, and a rule the
// server refuses is said at its field.
func TestATeamsPolicyIsShownAndSetRuleByRuleFromTheCommandLine(t *testing.T) {
	t.Parallel()
	d, url := served(t)
	admin := as(t, url, d.TokenFor(t, "ada", auth.Admin))
	admin.ok(t, "teams", "create", "payments")

	require.Regexp(t, `(?m)^TEAM payments\s*\nnamespaces\s+the global namespace policy's\ndrivers\s+every driver\nmax deployments\s+no quota\nmax cpu\s+no quota\nmax memory\s+no quota$`,
		admin.ok(t, "teams", "policy", "payments"))
	out := admin.ok(t, "teams", "policy", "payments", "--namespaces", "pay-*,payments", "--drivers", "redis,label:category=database",
		"--max-deployments", "10", "--max-cpu", "2500m", "--max-memory", "4Gi")
	require.Regexp(t, `(?m)^namespaces\s+pay-\*, payments\ndrivers\s+redis, label:category=database\nmax deployments\s+10\nmax cpu\s+2500m\nmax memory\s+4Gi$`, out)
	out = admin.ok(t, "teams", "policy", "payments", "--drivers", "", "--max-cpu", "none")
	require.Regexp(t, `(?m)^namespaces\s+pay-\*, payments\ndrivers\s+\(none allowed\)\nmax deployments\s+10\nmax cpu\s+no quota\nmax memory\s+4Gi$`, out, "the rules not named are kept")
	policy := jsonOf[client.TeamPolicy](t, admin.ok(t, "teams", "policy", "payments", "-o", "json"))
	require.Equal(t, []string{}, *policy.Drivers, "no driver at all")
	require.Nil(t, policy.MaxCpuMillis)

	r := admin.run(t, "", "teams", "policy", "payments", "--max-cpu", "lots")
	require.Equal(t, cli.ExitUsage, r.code)
	require.Contains(t, r.err, `--max-cpu "lots" is not a quota: give a number of at least 0, or "none" to remove the quota.`)
	r = admin.run(t, "", "teams", "policy", "payments", "--drivers", "Redis")
	require.Equal(t, cli.ExitRefused, r.code)
	require.Contains(t, r.err, "\n  drivers: These are not drivers: \"Redis\".")
	team, err := d.Deps.Teams.Get(context.Background(), "payments")
	require.NoError(t, err)
	require.Equal(t, []string{}, team.Policy.Drivers, "the refused changes changed nothing")
	require.Equal(t, int64(4<<30), *team.Policy.MaxMemoryBytes)
}

// TestWhoamiSaysTheTeamsTheTokenActsIn: amy's plain token acts in all her
// teams; a token narrowed to payments says so at login and in whoami, and
// acts there only.
func TestWhoamiSaysTheTeamsTheTokenActsIn(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	d, url := served(t)
	_, amy := d.As(t, "amy", auth.Member)
	for team, role := range map[string]auth.Role{"payments": auth.Operator, "search": auth.ReadOnly} {
		_, err := d.Deps.Teams.Create(ctx, team)
		require.NoError(t, err)
		require.NoError(t, d.Deps.Teams.SetMember(ctx, team, amy.ID, role))
	}
	narrowed, err := d.Deps.APITokens.CreateInTeam(ctx, auth.Credential{User: amy}, "payments only", nil, "payments")
	require.NoError(t, err)

	out := as(t, url, d.TokenOf(t, amy)).ok(t, "whoami")
	require.Regexp(t, `(?m)^User:\s+amy \(local\)\nRole:\s+member\nToken:\s+acts in all your teams$`, out)
	require.Regexp(t, `(?m)^TEAM\s+ROLE IN TEAM\npayments\s+operator\nsearch\s+read-only$`, out)

	u := newUser(t)
	r := u.run(t, narrowed.Secret+"\n", "login", url)
	require.Equal(t, 0, r.code, r.err)
	require.Contains(t, r.out, "as amy (member, acting in team payments only)")
	out = u.ok(t, "whoami")
	require.Regexp(t, `(?m)^Token:\s+narrowed to team payments: it acts there only$`, out)
	require.Regexp(t, `(?m)^TEAM\s+ROLE IN TEAM\npayments\s+operator$`, out)
	me := jsonOf[client.Me](t, u.ok(t, "whoami", "-o", "json"))
	require.Equal(t, "payments", *me.Team)
	require.Equal(t, []client.Membership{{Team: "payments", Role: "operator"}}, me.Teams)
}
