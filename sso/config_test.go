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
