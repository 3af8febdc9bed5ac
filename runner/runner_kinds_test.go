package runner_test

import (
	"maps"
	"slices"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/styrmin/styrmin/deployment"
	"github.com/styrmin/styrmin/runner"
)

// TestEveryTaskKindHasARunner: the executor can run a task of every kind,
// and of no other.
func TestEveryTaskKindHasARunner(t *testing.T) {
	t.Parallel()
	var s *runner.Runners // ByKind only binds its runners to s
	require.ElementsMatch(t, deployment.TaskKinds(), slices.Collect(maps.Keys(s.ByKind())))
}
