package bundled_test

import (
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/styrmin/styrmin/drivers"
	"github.com/styrmin/styrmin/drivers/bundled"
)

// testPassword is the value every secret parameter gets in these tests.
const testPassword = "s3cret-test-password"

// loadBundle loads a bundled driver with the drivers package, which fails on
// anything `styrmin driver lint` would report.
func loadBundle(t *testing.T, name string) *drivers.Bundle {
	t.Helper()
	b, err := drivers.LoadBundle(t.Context(), bundled.Bundles(), name)
	require.NoError(t, err)
	require.NotNil(t, b.Chart, "%s ships its chart in the bundle", name)
	return b
}

// renderValues renders the driver's values template as Styrmin does on an
// install: every parameter's default (secrets get testPassword), then the
// overrides, checked against their parameters.
func renderValues(t *testing.T, d *drivers.Driver, version, release string, overrides map[string]any) map[string]any {
	t.Helper()
	params := d.DefaultValues()
	for i := range d.Spec.Parameters {
		if p := &d.Spec.Parameters[i]; p.Type == drivers.TypeSecret {
			params[p.Name] = testPassword
		}
	}
	for name, value := range overrides {
		p := parameter(t, d, name)
		checked, err := p.Check(value)
		require.NoError(t, err, "override of %s", name)
		params[name] = checked
	}
	for i := range d.Spec.Parameters {
		require.Contains(t, params, d.Spec.Parameters[i].Name, "every parameter has a value")
	}
	values, err := d.RenderValues(t.Context(), drivers.ValuesData{
		Parameters: params,
		Version:    version,
		Deployment: drivers.DeploymentRef{Name: "demo", Namespace: "apps", Release: release},
		Driver:     drivers.DriverRef{Name: d.Metadata.Name, Version: d.Spec.Version},
	})
	require.NoError(t, err)
	return values
}

func parameter(t *testing.T, d *drivers.Driver, name string) *drivers.Parameter {
	t.Helper()
	for i := range d.Spec.Parameters {
		if d.Spec.Parameters[i].Name == name {
			return &d.Spec.Parameters[i]
		}
	}
	require.Failf(t, "unknown parameter", "%s declares no parameter %s", d.Metadata.Name, name)
	return nil
}
