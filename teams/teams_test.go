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
