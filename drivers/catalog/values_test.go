package catalog_test

import (
	"bytes"
	"io/fs"
	"path"
	"testing"
	"text/template"

	"github.com/Masterminds/sprig/v3"
	"github.com/goccy/go-yaml"
	"github.com/stretchr/testify/require"

	"github.com/styrmin/styrmin/drivers/catalog"
)

// driverFile is the part of driver.styrmin.yml that these tests read.
type driverFile struct {
	Spec struct {
		Version string `yaml:"version"`
		Helm    struct {
			Main struct {
				Version string `yaml:"version"`
				Values  string `yaml:"values"`
			} `yaml:"main"`
		} `yaml:"helm"`
		Parameters []struct {
			Name    string `yaml:"name"`
			Type    string `yaml:"type"`
			Default any    `yaml:"default"`
		} `yaml:"parameters"`
		Services []struct {
			Name      string `yaml:"name"`
			Component string `yaml:"component"`
			Port      int32  `yaml:"port"`
		} `yaml:"services"`
		Components []struct {
			Name     string `yaml:"name"`
			Selector struct {
				MatchLabels map[string]string `yaml:"matchLabels"`
			} `yaml:"selector"`
		} `yaml:"components"`
	} `yaml:"spec"`
}

func readDriver(t *testing.T, bundle string) driverFile {
	t.Helper()
	data, err := fs.ReadFile(catalog.Bundles(), path.Join(bundle, "driver.styrmin.yml"))
	require.NoError(t, err)
	var d driverFile
	require.NoError(t, yaml.Unmarshal(data, &d))
	return d
}

// testPassword is the value every secret parameter gets in these tests.
const testPassword = "s3cret-test-password"

// renderValues renders the driver's values template with every parameter's
// default (secrets get testPassword), then the overrides, for the given
// application version and release.
func renderValues(t *testing.T, d driverFile, version, release string, overrides map[string]any) map[string]any {
	t.Helper()
	params := map[string]any{}
	for _, p := range d.Spec.Parameters {
		params[p.Name] = p.Default
		if p.Type == "secret" {
			params[p.Name] = testPassword
		}
	}
	for name, value := range overrides {
		require.Contains(t, params, name, "override of an undeclared parameter")
		params[name] = value
	}
	tpl, err := template.New("values").Option("missingkey=error").Funcs(sprig.TxtFuncMap()).Parse(d.Spec.Helm.Main.Values)
	require.NoError(t, err)
	var out bytes.Buffer
	require.NoError(t, tpl.Execute(&out, map[string]any{
		"Parameters": params,
		"Version":    version,
		"Deployment": map[string]any{"Name": "demo", "Namespace": "apps", "Release": release},
		"Driver":     map[string]any{"Name": "test", "Version": d.Spec.Version},
	}))
	values := map[string]any{}
	require.NoError(t, yaml.Unmarshal(out.Bytes(), &values), out.String())
	return values
}
