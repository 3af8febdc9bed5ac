package policytext_test

import (
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/styrmin/styrmin/teams/policytext"
)

// TestQuotasAreReadAndWrittenAsKubernetesQuantities shows the one reading of
// CPU and memory quotas the page and the command line share: Kubernetes
// quantities in, millicores and bytes stored, the same quantities out; a
// negative or unreadable quota refused.
func TestQuotasAreReadAndWrittenAsKubernetesQuantities(t *testing.T) {
	t.Parallel()
	cpu, err := policytext.ParseCPU("1500m")
	require.NoError(t, err)
	require.Equal(t, int64(1500), cpu)
	require.Equal(t, "1500m", policytext.CPUString(cpu))
	memory, err := policytext.ParseMemory("4Gi")
	require.NoError(t, err)
	require.Equal(t, int64(4<<30), memory)
	require.Equal(t, "4Gi", policytext.MemoryString(memory))
	for _, bad := range []string{"-1", "-100u", "two", ""} {
		_, err := policytext.ParseCPU(bad)
		require.Error(t, err, bad)
		_, err = policytext.ParseMemory(bad)
		require.Error(t, err, bad)
	}
}
