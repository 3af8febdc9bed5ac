package teams_test

import (
	"context"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/styrmin/styrmin"
	"github.com/styrmin/styrmin/db/dbtest"
	"github.com/styrmin/styrmin/teams"
)

// TestATeamsPolicyIsKeptAsSetAndNoRuleIsNil shows that a team starts with no
// rule of its own (every field nil), keeps a policy as it was set (an empty
// driver list is "no driver", not "every driver"), and that setting the
// policy of an unknown team is refused.
func TestATeamsPolicyIsKeptAsSetAndNoRuleIsNil(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	store := teams.NewStore(dbtest.New(t))
	_, err := store.Create(ctx, "payments")
	require.NoError(t, err)
	team, err := store.Get(ctx, "payments")
	require.NoError(t, err)
	require.Equal(t, teams.Policy{}, team.Policy)

	three, cpu := int64(3), int64(2000)
	set := teams.Policy{Namespaces: []string{"pay-*"}, Drivers: []string{}, MaxDeployments: &three, MaxCPUMillis: &cpu}
	require.NoError(t, store.SetPolicy(ctx, "payments", set))
	team, err = store.Get(ctx, "payments")
	require.NoError(t, err)
	require.Equal(t, set, team.Policy)
	listed, err := store.List(ctx)
	require.NoError(t, err)
	require.Equal(t, set, listed[1].Policy, "the list reads the policy too (default sorts first)")

	require.Equal(t, styrmin.ENOTFOUND, styrmin.ErrorCode(store.SetPolicy(ctx, "nobody", set)))
}
