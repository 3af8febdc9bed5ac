// Package bundledtest gives tests copies of the bundled drivers under other
// versions and with other actions, to import into a test's catalogue.
package bundledtest

import (
	"io/fs"
	"testing"
	"testing/fstest"

	"github.com/stretchr/testify/require"
	"gopkg.in/yaml.v3"

	"github.com/styrmin/styrmin/drivers/bundled"
)

// AsVersion returns the files of a bundled driver as version, with its
// actions as bundled: a bundle for bundled.Catalog.ImportFS with root ".".
func AsVersion(t testing.TB, driver, version string) fstest.MapFS {
	t.Helper()
	return Edited(t, driver, version, func(*yaml.Node) {})
}

// Copy returns the files of a bundled driver as version, with its
// spec.actions replaced by actionsYAML (a YAML list; "" removes them) and,
// when actionsPy is not "", its actions.py replaced: a bundle for
// bundled.Catalog.ImportFS with root ".".
func Copy(t testing.TB, driver, version, actionsYAML, actionsPy string) fstest.MapFS {
	t.Helper()
	bundle := Edited(t, driver, version, func(spec *yaml.Node) {
		for i := 0; i < len(spec.Content); i += 2 {
			if spec.Content[i].Value == "actions" {
				spec.Content = append(spec.Content[:i], spec.Content[i+2:]...)
				break
			}
		}
		if actionsYAML != "" {
			var list yaml.Node
			require.NoError(t, yaml.Unmarshal([]byte(actionsYAML), &list))
			spec.Content = append(spec.Content, &yaml.Node{Kind: yaml.ScalarNode, Value: "actions"}, list.Content[0])
		}
	})
	if actionsPy != "" {
		bundle["actions.py"] = &fstest.MapFile{Data: []byte(actionsPy)}
	}
	return bundle
}

// Edited returns the files of a bundled driver as version, with edit applied
// to its driver file's spec (a YAML mapping node; see MappingValue).
func Edited(t testing.TB, driver, version string, edit func(spec *yaml.Node)) fstest.MapFS {
	t.Helper()
	sub, err := fs.Sub(bundled.Bundles(), driver)
	require.NoError(t, err)
	bundle := fstest.MapFS{}
	require.NoError(t, fs.WalkDir(sub, ".", func(path string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		data, err := fs.ReadFile(sub, path)
		bundle[path] = &fstest.MapFile{Data: data}
		return err
	}))
	var doc yaml.Node
	require.NoError(t, yaml.Unmarshal(bundle["driver.styrmin.yml"].Data, &doc))
	spec := MappingValue(t, doc.Content[0], "spec")
	MappingValue(t, spec, "version").Value = version
	edit(spec)
	out, err := yaml.Marshal(&doc)
	require.NoError(t, err)
	bundle["driver.styrmin.yml"] = &fstest.MapFile{Data: out}
	return bundle
}

// MappingValue is the value of key in a YAML mapping node; the test fails
// when there is none.
func MappingValue(t testing.TB, m *yaml.Node, key string) *yaml.Node {
	t.Helper()
	for i := 0; i+1 < len(m.Content); i += 2 {
		if m.Content[i].Value == key {
			return m.Content[i+1]
		}
	}
	t.Fatalf("no %s in the driver file", key)
	return nil
}
