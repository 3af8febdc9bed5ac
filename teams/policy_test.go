package teams_test

import (
	"context"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/styrmin/styrmin"
	"github.com/styrmin/styrmin/auth"
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

// TestATeamsPolicyTakesOnlyPatternsDriversAndQuotas shows that SetPolicy
// trims its entries and refuses, at the field, a namespace entry that is no
// namespace glob, a driver entry that is neither a name nor
// label:KEY=VALUE, and a negative quota; the policy in force is unchanged.
func TestATeamsPolicyTakesOnlyPatternsDriversAndQuotas(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	store := teams.NewStore(dbtest.New(t))
	_, err := store.Create(ctx, "payments")
	require.NoError(t, err)

	require.NoError(t, store.SetPolicy(ctx, "payments", teams.Policy{Namespaces: []string{" pay-* ", "", "pay-*"}, Drivers: []string{"redis ", "label:tier=stateless"}}))
	team, err := store.Get(ctx, "payments")
	require.NoError(t, err)
	require.Equal(t, teams.Policy{Namespaces: []string{"pay-*"}, Drivers: []string{"redis", "label:tier=stateless"}}, team.Policy, "trimmed, blank and repeated entries dropped")

	minus := int64(-1)
	for _, tt := range []struct {
		policy  teams.Policy
		field   string
		message string
	}{
		{teams.Policy{Namespaces: []string{"Pay Ments", "[a-"}}, "namespaces", `These patterns are not namespace patterns: "Pay Ments", "[a-". Use lower-case letters, digits and '-', with * (any characters), ? (one) or [a-z] (a class).`},
		{teams.Policy{Drivers: []string{"Redis", "label:tier", "label:=x", "redis"}}, "drivers", `These are not drivers: "Redis", "label:tier", "label:=x". Give a driver's name (redis) or a label of drivers written label:KEY=VALUE (label:category=database).`},
		{teams.Policy{MaxDeployments: &minus}, "max_deployments", "A quota cannot be negative."},
	} {
		err := store.SetPolicy(ctx, "payments", tt.policy)
		require.Equal(t, styrmin.EINVALID, styrmin.ErrorCode(err))
		require.Equal(t, tt.message, styrmin.ErrorMessage(err))
		require.Equal(t, map[string]string{tt.field: tt.message}, styrmin.ErrorFields(err))
	}
	after, err := store.Get(ctx, "payments")
	require.NoError(t, err)
	require.Equal(t, team.Policy, after.Policy, "the policy in force is unchanged")
}

func TestAPolicysDriversAllowNamesAndLabels(t *testing.T) {
	t.Parallel()
	labels := map[string]string{"tier": "stateless", "category": "web"}
	tests := []struct {
		drivers []string
		allowed bool
	}{
		{nil, true},
		{[]string{}, false},
		{[]string{"hello-web"}, true},
		{[]string{"redis"}, false},
		{[]string{"label:tier=stateless"}, true},
		{[]string{"label:tier=stateful"}, false},
		{[]string{"label:team=web"}, false},
		{[]string{"redis", "label:category=web"}, true},
	}
	for _, tt := range tests {
		require.Equal(t, tt.allowed, teams.Policy{Drivers: tt.drivers}.AllowsDriver("hello-web", labels), "%q", tt.drivers)
	}
}

// TestTheDeployFormOffersOnlyTheTeamsThatMayDeployTheDriver shows which
// teams a deploy form offers for a driver: those of the user's whose
// policy allows it, and when none does, why.
func TestTheDeployFormOffersOnlyTheTeamsThatMayDeployTheDriver(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	_, store, users, amy := setup(t)
	for team, drivers := range map[string][]string{"web": {"label:tier=stateless"}, "data": {"postgresql"}, "audit": nil} {
		_, err := store.Create(ctx, team)
		require.NoError(t, err)
		require.NoError(t, store.SetPolicy(ctx, team, teams.Policy{Drivers: drivers}))
	}
	require.NoError(t, store.SetMember(ctx, "web", amy.ID, auth.Operator))
	require.NoError(t, store.SetMember(ctx, "data", amy.ID, auth.Operator))
	require.NoError(t, store.SetMember(ctx, "audit", amy.ID, auth.ReadOnly))

	access, err := store.AccessOf(ctx, amy)
	require.NoError(t, err)
	where, err := store.Deployable(ctx, access)
	require.NoError(t, err)
	require.Equal(t, []string{"data", "web"}, where.Names, "where amy is operator")
	require.False(t, where.Admin)
	offered, why := where.ForDriver("hello-web", map[string]string{"tier": "stateless"})
	require.Equal(t, []string{"web"}, offered)
	require.Empty(t, why)
	offered, why = where.ForDriver("redis", map[string]string{"tier": "stateful"})
	require.Empty(t, offered)
	require.Equal(t, "None of your teams may deploy the driver redis (data may deploy postgresql; web may deploy label:tier=stateless); ask an admin to allow it for one of them.", why)

	admin, err := users.Create(ctx, auth.NewUser{Username: "root", Password: "a long enough password", Role: auth.Admin})
	require.NoError(t, err)
	where, err = store.Deployable(ctx, teams.Access{User: admin})
	require.NoError(t, err)
	require.True(t, where.Admin)
	offered, _ = where.ForDriver("redis", nil)
	require.Equal(t, []string{"audit", "default"}, offered, "every team without a driver rule")
}

// TestDeployableTakesTheMembershipsTheCheckRead: Deployable reads no
// membership again, it takes those of the access the permission check read
// (AccessOf): amy, operator in web and data and read-only in audit, may
// deploy into web and data; a token of hers narrowed to data, into data
// only; an access without memberships, nowhere; a global operator, every
// team, with nothing read but the teams.
func TestDeployableTakesTheMembershipsTheCheckRead(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	_, store, users, amy := setup(t)
	ids := map[string]int64{}
	for _, team := range []string{"web", "data", "audit"} {
		made, err := store.Create(ctx, team)
		require.NoError(t, err)
		ids[team] = made.ID
	}
	require.NoError(t, store.SetMember(ctx, "web", amy.ID, auth.Operator))
	require.NoError(t, store.SetMember(ctx, "data", amy.ID, auth.Admin))
	require.NoError(t, store.SetMember(ctx, "audit", amy.ID, auth.ReadOnly))

	deployable := func(a teams.Access) teams.Deployable { return must[teams.Deployable](t)(store.Deployable(ctx, a)) }
	access, err := store.AccessOf(ctx, amy)
	require.NoError(t, err)
	where := deployable(access)
	require.Equal(t, []string{"data", "web"}, where.Names)
	require.ElementsMatch(t, []int64{ids["data"], ids["web"]}, where.IDs)

	narrowed := amy
	narrowed.OnlyTeam = ids["data"]
	access, err = store.AccessOf(ctx, narrowed)
	require.NoError(t, err)
	where = deployable(access)
	require.Equal(t, []string{"data"}, where.Names)
	require.Equal(t, []int64{ids["data"]}, where.IDs, "the one team an install naming none goes into")

	where = deployable(teams.Access{User: amy})
	require.Empty(t, where.Names)
	require.Equal(t, []int64{}, where.IDs, "no membership given: no team, not every team")

	olga, err := users.Create(ctx, auth.NewUser{Username: "olga", Password: "a long enough password", Role: auth.Operator})
	require.NoError(t, err)
	where = deployable(teams.Access{User: olga})
	require.Equal(t, []string{"audit", "data", "default", "web"}, where.Names)
	require.Nil(t, where.IDs, "every team")
	require.False(t, where.Admin)
}

// TestTheCatalogueShowsAMemberTheDriversTheirTeamsMayDeploy: amy, whose own
// role is member, sees the drivers that one of her teams' rules allows
// (web: label tier=stateless; data: postgresql), and every driver once she
// joins a team without a rule; her token narrowed to data sees PostgreSQL
// only; a member of no team sees none; a user with a role of their own
// sees every driver. Users whose teams have the same rules share a key.
func TestTheCatalogueShowsAMemberTheDriversTheirTeamsMayDeploy(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	_, store, users, amy := setup(t)
	ids := map[string]int64{}
	for team, drivers := range map[string][]string{"web": {"label:tier=stateless"}, "data": {"postgresql"}, "audit": nil, "copy": {"postgresql"}} {
		made, err := store.Create(ctx, team)
		require.NoError(t, err)
		ids[team] = made.ID
		require.NoError(t, store.SetPolicy(ctx, team, teams.Policy{Drivers: drivers}))
	}
	require.NoError(t, store.SetMember(ctx, "web", amy.ID, auth.ReadOnly))
	require.NoError(t, store.SetMember(ctx, "data", amy.ID, auth.Operator))
	bob, err := users.Create(ctx, auth.NewUser{Username: "bob", Password: "a long enough password", Role: auth.Member})
	require.NoError(t, err)
	require.NoError(t, store.SetMember(ctx, "web", bob.ID, auth.Operator))
	require.NoError(t, store.SetMember(ctx, "copy", bob.ID, auth.Operator))

	driversOf := func(u auth.User) teams.Drivers { return must[teams.Drivers](t)(store.DriversOf(ctx, u)) }
	stateless, stateful := map[string]string{"tier": "stateless"}, map[string]string{"tier": "stateful"}
	shown := driversOf(amy)
	require.False(t, shown.Every())
	require.True(t, shown.Allows("hello-web", stateless), "web's label")
	require.True(t, shown.Allows("postgresql", stateful), "data's name")
	require.False(t, shown.Allows("redis", stateful))
	require.Equal(t, shown.Key(), driversOf(bob).Key(), "bob's teams have amy's rules")

	narrowed := amy
	narrowed.OnlyTeam = ids["data"]
	shown = driversOf(narrowed)
	require.True(t, shown.Allows("postgresql", stateful))
	require.False(t, shown.Allows("hello-web", stateless), "a token narrowed to data sees data's drivers only")
	require.NotEqual(t, driversOf(amy).Key(), shown.Key())

	loner, err := users.Create(ctx, auth.NewUser{Username: "lou", Password: "a long enough password", Role: auth.Member})
	require.NoError(t, err)
	require.False(t, driversOf(loner).Allows("hello-web", stateless), "a member of no team sees no driver")

	require.NoError(t, store.SetMember(ctx, "audit", amy.ID, auth.ReadOnly))
	require.True(t, driversOf(amy).Every(), "a team of hers may deploy every driver")
	require.Empty(t, driversOf(amy).Key())
	rita, err := users.Create(ctx, auth.NewUser{Username: "rita", Password: "a long enough password", Role: auth.ReadOnly})
	require.NoError(t, err)
	require.True(t, driversOf(rita).Every(), "a role of one's own sees every driver")
}

// must returns a function that returns a value read without error, failing
// t on an error.
func must[T any](t *testing.T) func(v T, err error) T {
	return func(v T, err error) T {
		t.Helper()
		require.NoError(t, err)
		return v
	}
}
