package teams_test

import (
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/styrmin/styrmin/teams"
)

// TestQuotasAreReadAndWrittenAsKubernetesQuantities shows the one reading of
// CPU and memory quotas the page and the command line share: Kubernetes
// quantities in, millicores and bytes stored, the same quantities out; a
// negative or unreadable quota refused.
func TestQuotasAreReadAndWrittenAsKubernetesQuantities(t *testing.T) {
	t.Parallel()
	cpu, err := teams.ParseCPU("1500m")
	require.NoError(t, err)
	require.Equal(t, int64(1500), cpu)
	require.Equal(t, "1500m", teams.CPUString(cpu))
	memory, err := teams.ParseMemory("4Gi")
	require.NoError(t, err)
	require.Equal(t, int64(4<<30), memory)
	require.Equal(t, "4Gi", teams.MemoryString(memory))
	for _, bad := range []string{"-1", "-100u", "two", ""} {
		_, err := teams.ParseCPU(bad)
		require.Error(t, err, bad)
		_, err = teams.ParseMemory(bad)
		require.Error(t, err, bad)
	}
}
