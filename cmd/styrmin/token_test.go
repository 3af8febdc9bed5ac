package main

import (
	"bytes"
	"context"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/spf13/cobra"
	"github.com/stretchr/testify/require"

	"github.com/styrmin/styrmin"
	"github.com/styrmin/styrmin/auth"
	"github.com/styrmin/styrmin/db/dbtest"
)

// runCmd runs cmd with args against databaseURL and returns its output.
func runCmd(t *testing.T, cmd *cobra.Command, databaseURL string, args ...string) (stdout, stderr string, err error) {
	t.Helper()
	var out, errOut bytes.Buffer
	cmd.SetOut(&out)
	cmd.SetErr(&errOut)
	cmd.SilenceUsage, cmd.SilenceErrors = true, true // as under the root command
	cmd.SetArgs(append([]string{"--database-url", databaseURL}, args...))
	err = cmd.ExecuteContext(context.Background())
	return out.String(), errOut.String(), err
}

// TestTokenCommands creates, lists and revokes a token as a script would:
// stdout of `token create` is the token and nothing else.
func TestTokenCommands(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	pool := dbtest.New(t)
	url := pool.Config().ConnString()
	tokens := auth.NewAPITokens(pool)
	_, stderr, err := runCmd(t, newUserCreateCmd(), url, "--username", "ci", "--role", "operator")
	require.NoError(t, err, stderr)

	secret, stderr, err := runCmd(t, newTokenCreateCmd(), url, "--username", "CI", "--expires", "12h")
	require.NoError(t, err, stderr)
	require.Regexp(t, `^stp_[A-Za-z0-9_-]+\n$`, secret, "only the token, for $(styrmin token create ...)")
	secret = strings.TrimSpace(secret)
	require.Contains(t, stderr, `"created on the command line `+time.Now().UTC().Format(time.DateOnly)+`" for ci`)
	cred, err := tokens.Authenticate(ctx, secret)
	require.NoError(t, err)
	require.Equal(t, "ci", cred.User.Username)

	never, _, err := runCmd(t, newTokenCreateCmd(), url, "--username", "ci", "--name", "deploy bot", "--expires", "never")
	require.NoError(t, err)
	list, err := tokens.List(ctx, cred.User)
	require.NoError(t, err)
	require.Len(t, list, 2)
	require.Equal(t, "deploy bot", list[0].Name)
	require.Nil(t, list[0].ExpiresAt, "never expires")
	require.WithinDuration(t, time.Now().Add(12*time.Hour), *list[1].ExpiresAt, time.Minute)

	stdout, _, err := runCmd(t, newTokenListCmd(), url, "--username", "ci")
	require.NoError(t, err)
	require.Contains(t, stdout, "deploy bot")
	require.Contains(t, stdout, "created on the command line")
	require.NotContains(t, stdout, auth.APITokenPrefix, "a list shows no secret")

	_, stderr, err = runCmd(t, newTokenRevokeCmd(), url, "--id", "1000000")
	require.Equal(t, styrmin.ENOTFOUND, styrmin.ErrorCode(err), stderr)
	_, _, err = runCmd(t, newTokenRevokeCmd(), url, "--id", strconv.FormatInt(list[0].ID, 10))
	require.NoError(t, err)
	_, err = tokens.Authenticate(ctx, strings.TrimSpace(never))
	require.Equal(t, styrmin.EUNAUTHORIZED, styrmin.ErrorCode(err), "the revoked token is refused")
	_, err = tokens.Authenticate(ctx, secret)
	require.NoError(t, err, "the other still works")
}

func TestTokenCreateRefuses(t *testing.T) {
	t.Parallel()
	url := dbtest.NewURL(t)
	_, _, err := runCmd(t, newUserCreateCmd(), url, "--username", "ci", "--role", "read-only")
	require.NoError(t, err)

	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"--username", "nobody"}, `no user named "nobody"`},
		{[]string{"--username", "ci", "--expires", "30"}, "--expires: Give the lifetime"},
		{[]string{"--username", "ci", "--name", strings.Repeat("n", 101)}, "at most 100 characters"},
		{[]string{"--expires", "1d"}, `"username" not set`},
	} {
		stdout, _, err := runCmd(t, newTokenCreateCmd(), url, tc.args...)
		require.ErrorContains(t, err, tc.want, tc.args)
		require.Empty(t, stdout, "a failure prints no token: %v", tc.args)
	}
}

// TestTokenCreateForATeam narrows a token to one of its user's teams: it
// then acts with no role of its own, in that team only, and the list says
// so; a team the user is not in is refused.
func TestTokenCreateForATeam(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	pool := dbtest.New(t)
	url := pool.Config().ConnString()
	_, stderr, err := runCmd(t, newUserCreateCmd(), url, "--username", "amy", "--role", "operator", "--password", "a long enough password")
	require.NoError(t, err, stderr)
	_, stderr, err = runCmd(t, newTeamCmd(), url, "create", "payments")
	require.NoError(t, err, stderr)
	_, stderr, err = runCmd(t, newTeamCmd(), url, "add", "payments", "amy", "read-only")
	require.NoError(t, err, stderr)

	_, _, err = runCmd(t, newTokenCreateCmd(), url, "--username", "amy", "--team", "shipping")
	require.ErrorContains(t, err, `You are in no team named "shipping"`)
	secret, stderr, err := runCmd(t, newTokenCreateCmd(), url, "--username", "amy", "--name", "payments bot", "--team", "payments")
	require.NoError(t, err, stderr)
	require.Contains(t, stderr, "for amy in the team payments only")
	cred, err := auth.NewAPITokens(pool).Authenticate(ctx, strings.TrimSpace(secret))
	require.NoError(t, err)
	require.Equal(t, auth.Member, cred.User.Role, "no role of its own: only its role in payments")
	require.NotZero(t, cred.User.OnlyTeam)

	stdout, _, err := runCmd(t, newTokenListCmd(), url, "--username", "amy")
	require.NoError(t, err)
	require.Regexp(t, `(?m)^\d+\s+payments bot\s+payments\s`, stdout)
}
