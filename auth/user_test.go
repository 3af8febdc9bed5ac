package auth_test

import (
	"context"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/styrmin/styrmin"
	"github.com/styrmin/styrmin/auth"
	"github.com/styrmin/styrmin/db/dbtest"
)

func newUsers(t *testing.T) *auth.Users {
	t.Helper()
	users, err := auth.NewUsers(dbtest.New(t), auth.WithArgon2(auth.CheapArgon2()))
	require.NoError(t, err)
	return users
}

func createUser(t *testing.T, users *auth.Users, name string, role auth.Role) auth.User {
	t.Helper()
	u, err := users.Create(context.Background(), auth.NewUser{Username: name, Password: "password-of-" + name, Role: role})
	require.NoError(t, err)
	return u
}

func TestCreateUser(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	users := newUsers(t)

	u, err := users.Create(ctx, auth.NewUser{Username: "  Alice ", Password: "a long password", Role: auth.Operator})
	require.NoError(t, err)
	require.Equal(t, "alice", u.Username, "usernames are trimmed and lower-cased")
	require.Equal(t, auth.Operator, u.Role)

	got, err := users.Get(ctx, u.ID)
	require.NoError(t, err)
	require.Equal(t, u, got)

	got, err = users.GetByUsername(ctx, " Alice")
	require.NoError(t, err)
	require.Equal(t, u, got, "a username is found as typed")

	_, err = users.Create(ctx, auth.NewUser{Username: "ALICE", Password: "another password", Role: auth.Admin})
	require.Equal(t, styrmin.ECONFLICT, styrmin.ErrorCode(err))
	require.ErrorContains(t, err, `"alice" already exists`)
}

func TestCreateUserRefusesBadInput(t *testing.T) {
	t.Parallel()
	users := newUsers(t)
	tests := []struct {
		name  string
		user  auth.NewUser
		field string
	}{
		{"empty username", auth.NewUser{Username: "", Password: "a long password", Role: auth.Admin}, "username"},
		{"space in username", auth.NewUser{Username: "a b", Password: "a long password", Role: auth.Admin}, "username"},
		{"starts with dot", auth.NewUser{Username: ".x", Password: "a long password", Role: auth.Admin}, "username"},
		{"short password", auth.NewUser{Username: "bob", Password: "short", Role: auth.Admin}, "password"},
		{"no role", auth.NewUser{Username: "bob", Password: "a long password"}, "role"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := users.Create(context.Background(), tt.user)
			require.Equal(t, styrmin.EINVALID, styrmin.ErrorCode(err))
			require.Contains(t, styrmin.ErrorFields(err), tt.field)
		})
	}
}

func TestGetUnknownUserIsNotFound(t *testing.T) {
	t.Parallel()
	_, err := newUsers(t).Get(context.Background(), 4242)
	require.Equal(t, styrmin.ENOTFOUND, styrmin.ErrorCode(err))
	_, err = newUsers(t).GetByUsername(context.Background(), "nobody")
	require.Equal(t, styrmin.ENOTFOUND, styrmin.ErrorCode(err))
}

// TestUserChanges: role, password and disabling apply; which of them end
// sessions is tested in session_test.go.
func TestUserChanges(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	users := newUsers(t)
	createUser(t, users, "root", auth.Admin)
	bob := createUser(t, users, "bob", auth.ReadOnly)

	changes := []func() (auth.User, error){
		func() (auth.User, error) { return users.SetRole(ctx, bob.ID, auth.Operator) },
		func() (auth.User, error) {
			return users.SetPassword(ctx, bob.ID, "a brand new password", auth.EndAPITokens)
		},
		func() (auth.User, error) { return users.SetDisabled(ctx, bob.ID, true) },
		func() (auth.User, error) { return users.SetDisabled(ctx, bob.ID, false) },
	}
	for _, change := range changes {
		_, err := change()
		require.NoError(t, err)
	}
	u, err := users.Get(ctx, bob.ID)
	require.NoError(t, err)
	require.Equal(t, auth.Operator, u.Role)
	require.False(t, u.Disabled)

	_, err = users.SignIn(ctx, "bob", "a brand new password", "192.0.2.1")
	require.NoError(t, err, "the reset password works")
}

func TestTheLastEnabledAdminStays(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	users := newUsers(t)
	root := createUser(t, users, "root", auth.Admin)

	_, err := users.SetRole(ctx, root.ID, auth.Operator)
	require.Equal(t, styrmin.ECONFLICT, styrmin.ErrorCode(err))
	require.ErrorContains(t, err, "last enabled admin")
	_, err = users.SetDisabled(ctx, root.ID, true)
	require.Equal(t, styrmin.ECONFLICT, styrmin.ErrorCode(err))

	u, err := users.Get(ctx, root.ID)
	require.NoError(t, err)
	require.Equal(t, auth.Admin, u.Role, "the refused change was rolled back")
	require.False(t, u.Disabled)

	second := createUser(t, users, "second", auth.Admin)
	_, err = users.SetDisabled(ctx, root.ID, true)
	require.NoError(t, err, "with another admin, the first may be disabled")
	_, err = users.SetRole(ctx, second.ID, auth.ReadOnly)
	require.Equal(t, styrmin.ECONFLICT, styrmin.ErrorCode(err), "a disabled admin does not count")
}

func TestSetRoleAndPasswordOfUnknownUser(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	users := newUsers(t)
	_, err := users.SetRole(ctx, 99, auth.Admin)
	require.Equal(t, styrmin.ENOTFOUND, styrmin.ErrorCode(err))
	_, err = users.SetDisabled(ctx, 99, true)
	require.Equal(t, styrmin.ENOTFOUND, styrmin.ErrorCode(err))
	_, err = users.SetPassword(ctx, 99, "a long password", auth.EndAPITokens)
	require.Equal(t, styrmin.ENOTFOUND, styrmin.ErrorCode(err))
}

func TestEnsureAdmin(t *testing.T) {
	t.Parallel()
	ctx := context.Background()

	t.Run("with the given password", func(t *testing.T) {
		users := newUsers(t)
		created, password, err := users.EnsureAdmin(ctx, "from the environment")
		require.NoError(t, err)
		require.True(t, created)
		require.Equal(t, "from the environment", password)
		u, err := users.SignIn(ctx, "admin", "from the environment", "192.0.2.1")
		require.NoError(t, err)
		require.Equal(t, auth.Admin, u.Role)

		created, _, err = users.EnsureAdmin(ctx, "from the environment")
		require.NoError(t, err)
		require.False(t, created, "only when there are no users")
	})
	t.Run("generated", func(t *testing.T) {
		users := newUsers(t)
		created, password, err := users.EnsureAdmin(ctx, "")
		require.NoError(t, err)
		require.True(t, created)
		_, err = users.SignIn(ctx, "admin", password, "192.0.2.1")
		require.NoError(t, err)
	})
	t.Run("too short a password", func(t *testing.T) {
		_, _, err := newUsers(t).EnsureAdmin(ctx, "short")
		require.ErrorContains(t, err, "at least 10 characters")
	})
	t.Run("not when other users exist", func(t *testing.T) {
		users := newUsers(t)
		createUser(t, users, "someone", auth.ReadOnly)
		created, _, err := users.EnsureAdmin(ctx, "")
		require.NoError(t, err)
		require.False(t, created)
	})
}
