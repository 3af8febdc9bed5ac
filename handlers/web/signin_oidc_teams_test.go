package web_test

import (
	"bytes"
	"context"
	"log/slog"
	"net/http"
	"sync"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/styrmin/styrmin/app/apptest"
	"github.com/styrmin/styrmin/auth"
	"github.com/styrmin/styrmin/db/dbtest"
	"github.com/styrmin/styrmin/sso"
	"github.com/styrmin/styrmin/sso/ssotest"
	"github.com/styrmin/styrmin/teams"
)

// lockedLog is a log the server writes while the test reads it.
type lockedLog struct {
	mu  sync.Mutex
	buf bytes.Buffer
}

func (l *lockedLog) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.buf.Write(p)
}

func (l *lockedLog) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.buf.String()
}

// ssoTeamGroups map the test issuer's groups to team roles; the team
// nowhere does not exist.
const ssoTeamGroups = "payments:operator=platform-ops,shipping:admin=platform-ops,payments:readonly=finance,nowhere:operator=ghosts"

// TestSingleSignOnSetsTheMappedTeamsFromTheGroups: at every sign-in the
// user's memberships of the teams the mapping names follow their groups
// (added, role changed, removed when the group is gone), each change in the
// sign-in's audit entry; a team no mapping names keeps them as an admin
// set it. A user whose groups give team roles only is a member. A mapping
// naming a team that does not exist is a warning at start-up and in the
// sign-in's entry, and stops nothing.
func TestSingleSignOnSetsTheMappedTeamsFromTheGroups(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	pool := dbtest.New(t)
	store := teams.NewStore(pool)
	for _, name := range []string{"payments", "shipping", "legacy"} {
		_, err := store.Create(ctx, name)
		require.NoError(t, err)
	}
	mapping, err := sso.ParseTeamGroups(ssoTeamGroups)
	require.NoError(t, err)
	iss, log := ssotest.New(t), &lockedLog{}
	env := apptest.New(t, apptest.Options{NoBundled: true, DatabaseURL: pool.Config().ConnString(), Logger: slog.New(slog.NewTextHandler(log, nil)),
		SSO: &sso.Config{Issuer: iss.URL, ClientID: ssotest.ClientID, ClientSecret: ssotest.ClientSecret, Name: "Test ID", Roles: ssoRoles, Teams: mapping}})
	e := &ssoEnv{Env: env, iss: iss}
	require.Contains(t, log.String(), "single sign-on maps groups to a team that does not exist", "a warning at start-up")
	require.Contains(t, log.String(), "team=nowhere")
	require.NotContains(t, log.String(), "team=payments", "only the unknown team is warned of")

	teamsOf := func() map[string]auth.Role {
		u, err := e.Users.GetByUsername(ctx, "ada")
		require.NoError(t, err)
		mine, err := store.Of(ctx, u.ID)
		require.NoError(t, err)
		out := map[string]auth.Role{}
		for _, m := range mine {
			out[m.Team] = m.Role
		}
		return out
	}

	e.iss.SignInAs(ssotest.User{Subject: "sub-ada", Username: "ada", Groups: []string{"platform-ops"}})
	res, _ := e.signIn(t, browser(t))
	require.Equal(t, http.StatusSeeOther, res.StatusCode, "team roles alone give access")
	u, err := e.Users.GetByUsername(ctx, "ada")
	require.NoError(t, err)
	require.Equal(t, auth.Member, u.Role, "no role of her own: her teams' roles only")
	require.Equal(t, map[string]auth.Role{"payments": auth.Operator, "shipping": auth.Admin}, teamsOf())
	require.Equal(t, "payments=operator, shipping=admin", e.lastSignin(t).Detail["teams"])

	// An admin puts ada in legacy, which no mapping names; her groups change.
	require.NoError(t, store.SetMember(ctx, "legacy", u.ID, auth.ReadOnly))
	e.iss.SignInAs(ssotest.User{Subject: "sub-ada", Username: "ada", Groups: []string{"finance", "ghosts"}})
	res, _ = e.signIn(t, browser(t))
	require.Equal(t, http.StatusSeeOther, res.StatusCode)
	require.Equal(t, map[string]auth.Role{"payments": auth.ReadOnly, "legacy": auth.ReadOnly}, teamsOf(),
		"payments follows her groups, shipping is gone with platform-ops, legacy stays")
	entry := e.lastSignin(t)
	require.Equal(t, "payments=read-only, shipping=none", entry.Detail["teams"])
	require.Equal(t, "nowhere", entry.Detail["unknown_teams"], "the sign-in says which mapped team does not exist")

	// The same groups again change nothing, and the entry says none.
	res, _ = e.signIn(t, browser(t))
	require.Equal(t, http.StatusSeeOther, res.StatusCode)
	require.NotContains(t, e.lastSignin(t).Detail, "teams")

	// With a global role too, the teams still follow the groups.
	e.iss.SignInAs(ssotest.User{Subject: "sub-ada", Username: "ada", Groups: []string{"operators"}})
	res, _ = e.signIn(t, browser(t))
	require.Equal(t, http.StatusSeeOther, res.StatusCode)
	u, err = e.Users.GetByUsername(ctx, "ada")
	require.NoError(t, err)
	require.Equal(t, auth.Operator, u.Role)
	require.Equal(t, map[string]auth.Role{"legacy": auth.ReadOnly}, teamsOf(), "payments is gone with finance")
}
