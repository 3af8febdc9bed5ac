package catalog

import (
	"reflect"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/styrmin/styrmin/drivers"
	"github.com/styrmin/styrmin/lru"
)

func TestSpecCacheIsBoundedBySize(t *testing.T) {
	t.Parallel()
	// spec is a decoded spec whose one parameter has a default of n bytes,
	// held in an interface as decoded JSON holds it.
	spec := func(n int) Spec {
		d := &drivers.Driver{Metadata: drivers.Metadata{Name: "hello"}}
		d.Spec.Version, d.Spec.Info.Title = "1.0.0", "Hello"
		d.Spec.Parameters = []drivers.Parameter{{Name: "motd", Type: drivers.TypeText, Default: strings.Repeat("x", n)}}
		return Spec{Driver: d}
	}
	small, large := lru.TextSize(reflect.ValueOf(spec(10))), lru.TextSize(reflect.ValueOf(spec(10_010)))
	require.Equal(t, 10_000, large-small, "a default's text counts")
	withMap := spec(10)
	withMap.Driver.Spec.Parameters[0].Default = map[string]any{"greeting": strings.Repeat("x", 10_000)}
	require.Greater(t, lru.TextSize(reflect.ValueOf(withMap)), large, "so does the text in a map")

	specs := newSpecCache(4 * large)
	for _, digest := range []string{"a", "b", "c", "d", "e"} {
		specs.Add(digest, spec(10_010))
	}
	_, ok := specs.Get("a")
	require.False(t, ok, "the least recently read goes first")
	for _, digest := range []string{"b", "c", "d", "e"} {
		_, ok := specs.Get(digest)
		require.True(t, ok, "%s is kept", digest)
	}
}
