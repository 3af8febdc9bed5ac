package release_test

import (
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/styrmin/styrmin/drivers"
	"github.com/styrmin/styrmin/drivers/bundled"
	"github.com/styrmin/styrmin/release"
)

func TestValuesNameTheDeploymentByItsRelease(t *testing.T) {
	t.Parallel()
	b, err := drivers.LoadBundle(t.Context(), bundled.Bundles(), "redis")
	require.NoError(t, err)
	params := b.Driver.DefaultValues()
	params["password"] = "pw"

	values, err := release.Values(t.Context(), b.Driver, params, "7.4.1", "cache", "sessions")
	require.NoError(t, err)
	require.Equal(t, map[string]any{"deployment": "sessions", "driverVersion": b.Driver.Spec.Version}, values["styrmin"])
	require.Equal(t, map[string]any{"tag": "7.4.1"}, values["image"])

	delete(params, "password")
	_, err = release.Values(t.Context(), b.Driver, params, "7.4.1", "cache", "sessions")
	require.ErrorContains(t, err, "release: values of sessions: drivers: render values of redis")
}
