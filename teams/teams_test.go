package teams_test

import (
	"context"
	"testing"

	"github.com/jackc/pgx/v5/pgxpool"
	"github.com/stretchr/testify/require"

	"github.com/styrmin/styrmin"
	"github.com/styrmin/styrmin/auth"
	"github.com/styrmin/styrmin/db"
	"github.com/styrmin/styrmin/db/dbtest"
	"github.com/styrmin/styrmin/teams"
)

// TestATeamIsMadeGivenMembersAndDeletedOnlyWhenItHoldsNoDeployment walks a
// team's life: a bad or taken name is refused at the field; members get a
// role in the team (never member: that is no role in a team); the default
// team and a team that holds a deployment, even a deleted one, cannot be
// deleted; an empty team can, with its memberships.
func TestATeamIsMadeGivenMembersAndDeletedOnlyWhenItHoldsNoDeployment(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	pool, store, _, amy := setup(t)
	var err error

	for _, bad := range []string{"", "Payments", "-x", "a_b"} {
		_, err := store.Create(ctx, bad)
		require.Equal(t, styrmin.EINVALID, styrmin.ErrorCode(err), bad)
		require.Contains(t, styrmin.ErrorFields(err), "name")
	}
	_, err = store.Create(ctx, "payments")
	require.NoError(t, err)
	_, err = store.Create(ctx, "payments")
	require.Equal(t, styrmin.ECONFLICT, styrmin.ErrorCode(err))

	require.Equal(t, styrmin.EINVALID, styrmin.ErrorCode(store.SetMember(ctx, "payments", amy.ID, auth.Member)))
	require.NoError(t, store.SetMember(ctx, "payments", amy.ID, auth.ReadOnly))
	require.NoError(t, store.SetMember(ctx, "payments", amy.ID, auth.Operator), "a second call changes the role")
	members, err := store.Members(ctx, "payments")
	require.NoError(t, err)
	require.Equal(t, []teams.Member{{UserID: amy.ID, Username: "amy", Role: auth.Operator, UserRole: auth.Member}}, members)
	access, err := store.AccessOf(ctx, amy)
	require.NoError(t, err)
	require.Equal(t, auth.Operator, access.Highest())
	visible, err := store.Visible(ctx, amy)
	require.NoError(t, err)
	require.Equal(t, []int64{access.Teams[0].TeamID}, visible, "amy's lists show her team's deployments only")

	require.Equal(t, styrmin.ECONFLICT, styrmin.ErrorCode(store.Delete(ctx, teams.Default)))
	q := db.New(pool)
	_, err = q.InsertDriverVersion(ctx, db.InsertDriverVersionParams{Name: "demo", Version: "1.0.0", Title: "Demo", Labels: []byte("{}"), Spec: []byte("{}"), Digest: "sha256:demo", Bundle: []byte{}})
	require.NoError(t, err)
	_, err = q.InsertDeployment(ctx, db.InsertDeploymentParams{Name: "shop", Namespace: "shop", DriverName: "demo", DriverVersion: "1.0.0", AppVersion: "1", Parameters: []byte("{}"), CreatedBy: "amy"})
	require.NoError(t, err)
	require.NoError(t, store.Move(ctx, "shop", "payments"))
	_, err = pool.Exec(ctx, "UPDATE deployments SET deleted_at = now(), status = 'deleted' WHERE name = 'shop'")
	require.NoError(t, err)
	err = store.Delete(ctx, "payments")
	require.Equal(t, styrmin.ECONFLICT, styrmin.ErrorCode(err))
	require.ErrorContains(t, err, "still holds deployments (1, deleted ones included")

	require.NoError(t, store.RemoveMember(ctx, "payments", amy.ID))
	require.Equal(t, styrmin.ENOTFOUND, styrmin.ErrorCode(store.RemoveMember(ctx, "payments", amy.ID)))
	_, err = store.Create(ctx, "empty")
	require.NoError(t, err)
	require.NoError(t, store.SetMember(ctx, "empty", amy.ID, auth.Admin))
	require.NoError(t, store.Delete(ctx, "empty"))
	access, err = store.AccessOf(ctx, amy)
	require.NoError(t, err)
	require.Empty(t, access.Teams, "a deleted team's memberships go with it")
}

// setup is a fresh database's teams and users, with amy, a member.
func setup(t *testing.T) (*pgxpool.Pool, *teams.Store, *auth.Users, auth.User) {
	t.Helper()
	pool := dbtest.New(t)
	users, err := auth.NewUsers(pool)
	require.NoError(t, err)
	amy, err := users.Create(context.Background(), auth.NewUser{Username: "amy", Password: "a long enough password", Role: auth.Member})
	require.NoError(t, err)
	return pool, teams.NewStore(pool), users, amy
}

// TestEachChangeOfATeamSaysWhatItDidNotFind: a change of a team nobody made
// is told the team does not exist, in the words a read of it says; a move
// of a deployment that is not live, and the removal of a user who is not a
// member, say so. Nothing changes.
func TestEachChangeOfATeamSaysWhatItDidNotFind(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	pool, store, _, amy := setup(t)
	_, err := store.Create(ctx, "payments")
	require.NoError(t, err)

	for what, err := range map[string]error{
		"set a member":    store.SetMember(ctx, "nowhere", amy.ID, auth.Operator),
		"remove a member": store.RemoveMember(ctx, "nowhere", amy.ID),
		"move into it":    store.Move(ctx, "shop", "nowhere"),
		"set its policy":  store.SetPolicy(ctx, "nowhere", teams.Policy{}),
		"delete it":       store.Delete(ctx, "nowhere"),
	} {
		require.Equal(t, styrmin.ENOTFOUND, styrmin.ErrorCode(err), what)
		require.Equal(t, "There is no team named nowhere.", styrmin.ErrorMessage(err), what)
	}
	err = store.Move(ctx, "shop", "payments")
	require.Equal(t, styrmin.ENOTFOUND, styrmin.ErrorCode(err))
	require.Equal(t, `There is no live deployment named "shop".`, styrmin.ErrorMessage(err))
	err = store.RemoveMember(ctx, "payments", amy.ID)
	require.Equal(t, styrmin.ENOTFOUND, styrmin.ErrorCode(err))
	require.Equal(t, "That user is not a member of the team payments.", styrmin.ErrorMessage(err))

	var teamsCount, members int
	require.NoError(t, pool.QueryRow(ctx, "SELECT (SELECT count(*) FROM teams), (SELECT count(*) FROM team_members WHERE user_id = $1)", amy.ID).Scan(&teamsCount, &members))
	require.Equal(t, 2, teamsCount, "default and payments, nothing made")
	require.Zero(t, members, "amy joined no team")
}
