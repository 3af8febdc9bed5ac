package main

import (
	"bytes"
	"context"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/styrmin/styrmin/audit"
	"github.com/styrmin/styrmin/db/dbtest"
)

// TestTeamCommandsManageTeamsAndTheirMembersAudited runs `styrmin team` as
// an admin at the database would: a team made, a member added with a role
// and listed, a team that does not exist refused, the team deleted; each
// change is an audit entry of the command line.
func TestTeamCommandsManageTeamsAndTheirMembersAudited(t *testing.T) {
	t.Parallel()
	pool := dbtest.New(t)
	url := pool.Config().ConnString()
	team := func(args ...string) (string, error) {
		cmd := newTeamCmd()
		var out bytes.Buffer
		cmd.SetOut(&out)
		cmd.SetErr(&out)
		cmd.SilenceUsage, cmd.SilenceErrors = true, true
		cmd.SetArgs(append(args, "--database-url", url))
		err := cmd.ExecuteContext(context.Background())
		return out.String(), err
	}
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

	page, err := audit.NewStore(pool).List(context.Background(), audit.Viewer{Admin: true}, audit.Filter{TargetKind: audit.TargetTeam})
	require.NoError(t, err)
	var seen []string
	for _, e := range page.Entries {
		seen = append(seen, e.Action+" "+e.Target.Name+" "+string(e.Outcome))
	}
	require.ElementsMatch(t, []string{
		"team.create payments allowed", "team.update payments allowed", "team.update nowhere refused",
		"team.delete default refused", "team.delete payments allowed",
	}, seen)
}
