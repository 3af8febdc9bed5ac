package main

import (
	"bytes"
	"context"
	"testing"

	"github.com/jackc/pgx/v5/pgxpool"
	"github.com/stretchr/testify/require"

	"github.com/styrmin/styrmin/audit"
	"github.com/styrmin/styrmin/db/dbtest"
	"github.com/styrmin/styrmin/teams"
)

// TestTeamCommandsManageTeamsAndTheirMembersAudited runs `styrmin team` as
// an admin at the database would: a team made, a member added with a role
// and listed, a team that does not exist refused, the team deleted; each
// change is an audit entry of the command line.
func TestTeamCommandsManageTeamsAndTheirMembersAudited(t *testing.T) {
	t.Parallel()
	pool := dbtest.New(t)
	url := pool.Config().ConnString()
	team := teamCommand(url)
	_, stderr, err := runCmd(t, newUserCreateCmd(), url, "--username", "amy", "--role", "member", "--password", "a long enough password")
	require.NoError(t, err, stderr)

	out, err := team("create", "payments")
	require.NoError(t, err)
	require.Equal(t, "created team payments\n", out)
	out, err = team("add", "payments", "amy", "operator")
	require.NoError(t, err)
	require.Equal(t, "amy is operator in team payments\n", out)
	out, err = team("members", "payments")
	require.NoError(t, err)
	require.Regexp(t, `(?m)^USER\s+ROLE IN TEAM\s+OWN ROLE\namy\s+operator\s+member$`, out)
	out, err = team("list")
	require.NoError(t, err)
	require.Regexp(t, `(?m)^default\s+0\s+0\npayments\s+1\s+0$`, out)

	_, err = team("add", "nowhere", "amy", "operator")
	require.ErrorContains(t, err, "There is no team named nowhere.")
	_, err = team("move", "shop", "payments")
	require.ErrorContains(t, err, `There is no live deployment named "shop".`)
	_, err = team("delete", "default")
	require.ErrorContains(t, err, "cannot be deleted")
	out, err = team("delete", "payments")
	require.NoError(t, err)
	require.Equal(t, "deleted team payments\n", out)

	require.ElementsMatch(t, []string{
		"team.create payments allowed", "team.update payments allowed", "team.update nowhere refused",
		"team.delete default refused", "team.delete payments allowed",
	}, teamAuditEntries(t, pool))
}

// teamCommand runs `styrmin team` on the database at url and returns what
// it printed.
func teamCommand(url string) func(args ...string) (string, error) {
	return func(args ...string) (string, error) {
		cmd := newTeamCmd()
		var out bytes.Buffer
		cmd.SetOut(&out)
		cmd.SetErr(&out)
		cmd.SilenceUsage, cmd.SilenceErrors = true, true
		cmd.SetArgs(append(args, "--database-url", url))
		err := cmd.ExecuteContext(context.Background())
		return out.String(), err
	}
}

// TestTeamPolicySetsAndClearsEachRuleAudited runs `styrmin team policy`:
// without flags it shows the policy; each flag replaces one rule and keeps
// the others, "none" removes a rule, bad entries are refused with what is
// wrong and change nothing; each change is an audit entry.
func TestTeamPolicySetsAndClearsEachRuleAudited(t *testing.T) {
	t.Parallel()
	pool := dbtest.New(t)
	team := teamCommand(pool.Config().ConnString())
	_, err := team("create", "payments")
	require.NoError(t, err)

	out, err := team("policy", "payments")
	require.NoError(t, err)
	require.Regexp(t, `(?m)^namespaces\s+the global namespace policy's\ndrivers\s+every driver\nmax deployments\s+no quota\nmax cpu\s+no quota\nmax memory\s+no quota$`, out)

	out, err = team("policy", "payments", "--namespaces", "pay-*,payments", "--drivers", "redis,label:category=database",
		"--max-deployments", "10", "--max-cpu", "2500m", "--max-memory", "4Gi")
	require.NoError(t, err)
	require.Regexp(t, `(?m)^namespaces\s+pay-\*, payments\ndrivers\s+redis, label:category=database\nmax deployments\s+10\nmax cpu\s+2500m\nmax memory\s+4Gi$`, out)
	got, err := teams.NewStore(pool).Get(context.Background(), "payments")
	require.NoError(t, err)
	require.Equal(t, int64(2500), *got.Policy.MaxCPUMillis)
	require.Equal(t, int64(4<<30), *got.Policy.MaxMemoryBytes)

	out, err = team("policy", "payments", "--drivers", "none", "--max-cpu", "none", "--namespaces", "")
	require.NoError(t, err)
	require.Regexp(t, `(?m)^namespaces\s+\(none allowed\)\ndrivers\s+every driver\nmax deployments\s+10\nmax cpu\s+no quota\nmax memory\s+4Gi$`, out, "the rules not named are kept")

	_, err = team("policy", "payments", "--drivers", "Redis")
	require.ErrorContains(t, err, `These are not drivers: "Redis".`)
	_, err = team("policy", "payments", "--max-memory", "lots")
	require.ErrorContains(t, err, `--max-memory "lots" is not a quota: give a number of at least 0, or "none" to remove the quota.`)
	_, err = team("policy", "nowhere", "--max-deployments", "1")
	require.ErrorContains(t, err, "There is no team named nowhere.")

	require.ElementsMatch(t, []string{
		"team.create payments allowed", "team.update payments allowed", "team.update payments allowed",
		"team.update payments refused", "team.update payments refused", "team.update nowhere refused",
	}, teamAuditEntries(t, pool), "showing the policy changes nothing and is not audited")
}

// teamAuditEntries are the audit entries about teams, each "action target outcome".
func teamAuditEntries(t *testing.T, pool *pgxpool.Pool) []string {
	t.Helper()
	page, err := audit.NewStore(pool).List(context.Background(), audit.Viewer{Admin: true}, audit.Filter{TargetKind: audit.TargetTeam})
	require.NoError(t, err)
	var seen []string
	for _, e := range page.Entries {
		seen = append(seen, e.Action+" "+e.Target.Name+" "+string(e.Outcome))
	}
	return seen
}
