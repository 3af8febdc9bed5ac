package cli_test

import (
	"context"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/styrmin/styrmin/api/client"
	"github.com/styrmin/styrmin/auth"
	"github.com/styrmin/styrmin/cli"
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
