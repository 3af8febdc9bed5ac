package sso_test

import (
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/styrmin/styrmin/auth"
	"github.com/styrmin/styrmin/sso"
)

func TestParseRoleGroups(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		in      string
		want    sso.RoleGroups
		wantErr string
	}{
		{"admin=g1,operator=g2,readonly=g3", sso.RoleGroups{"g1": auth.Admin, "g2": auth.Operator, "g3": auth.ReadOnly}, ""},
		{" admin = ops , admin=root, read-only=all ", sso.RoleGroups{"ops": auth.Admin, "root": auth.Admin, "all": auth.ReadOnly}, ""},
		{"", nil, "map at least one group"},
		{"admin", nil, "is not role=group"},
		{"admin=", nil, "is not role=group"},
		{"boss=g1", nil, "the role is admin, operator or readonly"},
		{"admin=g1,operator=g1", nil, "given both admin and operator"},
	} {
		got, err := sso.ParseRoleGroups(tc.in)
		if tc.wantErr != "" {
			require.ErrorContains(t, err, tc.wantErr, tc.in)
			continue
		}
		require.NoError(t, err, tc.in)
		require.Equal(t, tc.want, got, tc.in)
	}
}

func TestRoleOfIsTheHighestMappedGroup(t *testing.T) {
	t.Parallel()
	rg := sso.RoleGroups{"admins": auth.Admin, "ops": auth.Operator, "all": auth.ReadOnly}
	require.Equal(t, auth.Admin, rg.RoleOf([]string{"all", "admins", "ops"}))
	require.Equal(t, auth.Operator, rg.RoleOf([]string{"marketing", "ops"}))
	require.Equal(t, auth.Anonymous, rg.RoleOf([]string{"marketing"}), "no mapped group, no role")
	require.Equal(t, auth.Anonymous, rg.RoleOf(nil))
}

func TestParseTeamGroups(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		in      string
		want    sso.TeamGroups
		wantErr string
	}{
		{"payments:operator=ops, shipping:readonly=ops ,payments:admin=leads", sso.TeamGroups{
			"ops":   {{Team: "payments", Role: auth.Operator}, {Team: "shipping", Role: auth.ReadOnly}},
			"leads": {{Team: "payments", Role: auth.Admin}},
		}, ""},
		{"", nil, "map at least one group to a team role"},
		{"payments=ops", nil, "is not team:role=group"},
		{"payments:operator", nil, "is not team:role=group"},
		{":operator=ops", nil, "is not team:role=group"},
		{"Payments!:operator=ops", nil, "is not a team name"},
		{"payments:member=ops", nil, "the role in a team is admin, operator or readonly"},
		{"payments:boss=ops", nil, "the role in a team is admin, operator or readonly"},
		{"payments:admin=ops,payments:operator=ops", nil, "given both admin and operator in team payments"},
	} {
		got, err := sso.ParseTeamGroups(tc.in)
		if tc.wantErr != "" {
			require.ErrorContains(t, err, tc.wantErr, tc.in)
			continue
		}
		require.NoError(t, err, tc.in)
		require.Equal(t, tc.want, got, tc.in)
	}
}

func TestTeamRolesAreTheHighestOfTheGroupsInEachMappedTeam(t *testing.T) {
	t.Parallel()
	tg, err := sso.ParseTeamGroups("payments:operator=ops,payments:readonly=all,shipping:admin=ops,web:readonly=web")
	require.NoError(t, err)
	require.Equal(t, []string{"payments", "shipping", "web"}, tg.Teams())
	require.Equal(t, map[string]auth.Role{"payments": auth.Operator, "shipping": auth.Admin, "web": auth.Anonymous}, tg.RolesOf([]string{"all", "ops"}))
	require.Equal(t, map[string]auth.Role{"payments": auth.ReadOnly, "shipping": auth.Anonymous, "web": auth.Anonymous}, tg.RolesOf([]string{"all", "marketing"}),
		"a mapped team none of the groups gives is one to leave")
	require.Nil(t, sso.TeamGroups(nil).RolesOf([]string{"ops"}), "no mapping, no team to follow")
}
