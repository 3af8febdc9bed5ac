package auth_test

import (
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/styrmin/styrmin"
	"github.com/styrmin/styrmin/auth"
)

func TestRoleAtLeast(t *testing.T) {
	t.Parallel()
	tests := []struct {
		role, least auth.Role
		want        bool
	}{
		{auth.Admin, auth.Admin, true},
		{auth.Admin, auth.Operator, true},
		{auth.Admin, auth.ReadOnly, true},
		{auth.Operator, auth.Admin, false},
		{auth.Operator, auth.Operator, true},
		{auth.Operator, auth.ReadOnly, true},
		{auth.ReadOnly, auth.Operator, false},
		{auth.ReadOnly, auth.ReadOnly, true},
		{auth.Anonymous, auth.ReadOnly, false},
		{auth.Anonymous, auth.Anonymous, true},
	}
	for _, tt := range tests {
		require.Equal(t, tt.want, tt.role.AtLeast(tt.least), "%s at least %s", tt.role, tt.least)
	}
}

func TestParseRoleRoundTrips(t *testing.T) {
	t.Parallel()
	for _, r := range auth.Roles() {
		got, err := auth.ParseRole(r.String())
		require.NoError(t, err)
		require.Equal(t, r, got)
	}
	for _, bad := range []string{"", "anonymous", "Admin", "root"} {
		_, err := auth.ParseRole(bad)
		require.Equal(t, styrmin.EINVALID, styrmin.ErrorCode(err), bad)
		if bad != "" {
			require.ErrorContains(t, err, "use admin, operator, read-only or member")
		}
	}
}
