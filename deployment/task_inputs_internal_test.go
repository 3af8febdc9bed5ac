package deployment

import (
	"fmt"
	"testing"

	"github.com/stretchr/testify/require"
)

// TestEveryTaskKindHasItsInputsType: each kind of the registry reads its
// inputs as a type of its own (stop and start share ComponentsInputs); a
// kind outside it reads none.
func TestEveryTaskKindHasItsInputsType(t *testing.T) {
	t.Parallel()
	types := map[string]bool{}
	for _, kind := range TaskKinds() {
		in, unread, err := readTaskInputs(kind, []byte(`{}`))
		require.NoError(t, err, kind)
		require.Empty(t, unread, kind)
		require.NotNil(t, in, kind)
		types[fmt.Sprintf("%T", in)] = true
	}
	require.Len(t, types, len(TaskKinds())-1, "one type per kind, but for stop and start")
	require.IsType(t, &ComponentsInputs{}, taskInputsOf(KindStop))
	require.IsType(t, &ComponentsInputs{}, taskInputsOf(KindStart))

	_, _, err := readTaskInputs("restart", []byte(`{}`))
	require.EqualError(t, err, `kind "restart" has no inputs type`)
}
