package policytext_test

import (
	"testing"

	"github.com/spf13/cobra"
	"github.com/stretchr/testify/require"

	"github.com/styrmin/styrmin/teams/policytext"
)

// applied runs a command with the policy flags args over rules and returns
// the rules after, the flags given and Apply's error.
func applied(t *testing.T, rules policytext.Rules, args ...string) (policytext.Rules, []string, error) {
	t.Helper()
	cmd := &cobra.Command{Use: "policy", RunE: func(*cobra.Command, []string) error { return nil }}
	flags := policytext.AddFlags(cmd)
	cmd.SetArgs(args)
	require.NoError(t, cmd.Execute())
	err := flags.Apply(&rules)
	return rules, flags.Given(), err
}

// TestEachPolicyFlagReplacesOneRuleAndNoneRemovesIt is the words both
// `styrmin team policy` and `styrmin teams policy` take: a rule not named
// is kept, "none" removes a rule, "" allows no entry of a list.
func TestEachPolicyFlagReplacesOneRuleAndNoneRemovesIt(t *testing.T) {
	t.Parallel()
	ten := int64(10)
	before := policytext.Rules{Namespaces: []string{"pay-*"}, MaxDeployments: &ten}

	after, given, err := applied(t, before, "--drivers", "redis,label:category=database", "--max-cpu", "2500m", "--max-memory", "4Gi")
	require.NoError(t, err)
	cpu, memory := int64(2500), int64(4<<30)
	require.Equal(t, policytext.Rules{Namespaces: []string{"pay-*"}, Drivers: []string{"redis", "label:category=database"}, MaxDeployments: &ten, MaxCPUMillis: &cpu, MaxMemoryBytes: &memory}, after)
	require.Equal(t, []string{"--drivers=redis,label:category=database", "--max-cpu=2500m", "--max-memory=4Gi"}, given)

	after, _, err = applied(t, after, "--namespaces", "none", "--drivers", "", "--max-deployments", "none")
	require.NoError(t, err)
	require.Nil(t, after.Namespaces, "none: the global policy's")
	require.Equal(t, []string{}, after.Drivers, `"": no driver at all`)
	require.Nil(t, after.MaxDeployments)
	require.Equal(t, [][2]string{
		{"namespaces", "the global namespace policy's"}, {"drivers", "(none allowed)"}, {"max deployments", "no quota"},
		{"max cpu", "2500m"}, {"max memory", "4Gi"},
	}, after.Lines())

	_, given, err = applied(t, before)
	require.NoError(t, err)
	require.Empty(t, given, "no flag, no change")
	for flag, bad := range map[string]string{"--max-deployments": "many", "--max-cpu": "-1", "--max-memory": "lots"} {
		_, _, err = applied(t, before, flag, bad)
		require.EqualError(t, err, flag+` "`+bad+`" is not a quota: give a number of at least 0, or "none" to remove the quota.`)
	}
}
