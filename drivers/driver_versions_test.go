package drivers_test

import (
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/styrmin/styrmin/drivers"
)

func TestSupportsVersion(t *testing.T) {
	t.Parallel()
	d := &drivers.Driver{Metadata: drivers.Metadata{Name: "postgresql"}, Spec: drivers.Spec{Version: "2.1.0", SupportedVersions: ">=14.0.0, <18.0.0"}}
	for _, ok := range []string{"16.2.0", "v16.2.0", "14", "17.9.9"} {
		require.NoError(t, d.SupportsVersion(ok), ok)
	}
	require.EqualError(t, d.SupportsVersion("18.0.0"), "version 18.0.0 is not supported by driver postgresql 2.1.0, which supports >=14.0.0, <18.0.0")
	require.EqualError(t, d.SupportsVersion("latest"), `"latest" is not a version (write for example 16.2.0)`)
}
