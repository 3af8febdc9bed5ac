package dbtest_test

import (
	"context"
	"testing"

	"github.com/stretchr/testify/require"
	"github.com/styrmin/styrmin/db"
	"github.com/styrmin/styrmin/db/dbtest"
)

func TestNewGivesEachTestItsOwnMigratedDatabase(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	first, second := dbtest.New(t), dbtest.New(t)

	_, err := db.New(first).CreateUser(ctx, db.CreateUserParams{Username: "alice", PasswordHash: new("x"), Role: "admin"})
	require.NoError(t, err)

	n, err := db.New(first).CountUsers(ctx)
	require.NoError(t, err)
	require.EqualValues(t, 1, n)
	n, err = db.New(second).CountUsers(ctx)
	require.NoError(t, err)
	require.EqualValues(t, 0, n, "a user created in one test database must not appear in another")
}
