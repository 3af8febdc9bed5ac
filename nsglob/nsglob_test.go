package nsglob_test

import (
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/styrmin/styrmin"
	"github.com/styrmin/styrmin/nsglob"
)

func TestPatternsMatchNamespacesAsGlobs(t *testing.T) {
	t.Parallel()
	tests := []struct {
		pattern, namespace string
		match              bool
	}{
		{"team-*", "team-blue", true},
		{"team-*", "team", false},
		{"lab-?", "lab-1", true},
		{"lab-[a-c]", "lab-d", false},
		{"[a-", "[a-", false},
	}
	for _, tt := range tests {
		require.Equal(t, tt.match, nsglob.Match(tt.pattern, tt.namespace), "%q against %q", tt.pattern, tt.namespace)
	}
	require.True(t, nsglob.MatchAny([]string{"x", "team-*"}, "team-a"))
	require.False(t, nsglob.MatchAny(nil, "team-a"))
}

func TestOnlyNamespaceGlobsArePatterns(t *testing.T) {
	t.Parallel()
	require.NoError(t, nsglob.Check([]string{"team-*", "lab-?", "[a-z]*", "shop"}))

	err := nsglob.Check([]string{"team-*", "Team A", "[a-", "a/b"})
	require.Equal(t, styrmin.EINVALID, styrmin.ErrorCode(err))
	require.Equal(t, `These patterns are not namespace patterns: "Team A", "[a-", "a/b". Use lower-case letters, digits and '-', with * (any characters), ? (one) or [a-z] (a class).`, styrmin.ErrorMessage(err))
}
