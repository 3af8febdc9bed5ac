package drivers

import (
	"bytes"
	"encoding/json"
	"path/filepath"
	"strings"
	"testing"

	"github.com/santhosh-tekuri/jsonschema/v6"
	"github.com/stretchr/testify/require"
	"gopkg.in/yaml.v3"
)

// TestSchemaAgreesWithParse validates driver files against the generated JSON
// Schema: what Parse accepts passes, and typical mistakes fail.
func TestSchemaAgreesWithParse(t *testing.T) {
	t.Parallel()
	raw, err := Schema()
	require.NoError(t, err)
	doc, err := jsonschema.UnmarshalJSON(bytes.NewReader(raw))
	require.NoError(t, err)
	c := jsonschema.NewCompiler()
	require.NoError(t, c.AddResource(SchemaID, doc))
	schema, err := c.Compile(SchemaID)
	require.NoError(t, err)

	valid := []string{baseDriver, mustRead(t, "testdata/good/"+SpecFile)}
	bundledSpecs, err := filepath.Glob("bundled/*/" + SpecFile)
	require.NoError(t, err)
	for _, f := range bundledSpecs {
		valid = append(valid, mustRead(t, f))
	}
	for _, text := range valid {
		_, err := Parse(t.Context(), "valid.yml", []byte(text))
		require.NoError(t, err)
		require.NoError(t, schema.Validate(yamlToJSONValue(t, text)))
	}

	for name, text := range map[string]string{
		"unknown field":           mustRead(t, "testdata/lint/unknown-fields/"+SpecFile),
		"enum without choices":    withSpec("parameters:\n  - {name: a, type: enum}"),
		"https without chart":     strings.Replace(baseDriver, "oci://registry.example.com/charts/demo", "https://charts.example.com", 1),
		"bad hook":                withSpec("actions:\n  - {name: b, hook: later, function: \"actions:b\"}"),
		"chart digest not sha256": baseDriver + "      digest: md5:d41d8cd98f00b204e9800998ecf8427e\n",
		"missing spec":            "apiVersion: styrmin.io/v1\nkind: Driver\nmetadata: {name: x}\n",
	} {
		_, err := Parse(t.Context(), "invalid.yml", []byte(text))
		require.Error(t, err, name)
		require.Error(t, schema.Validate(yamlToJSONValue(t, text)), name)
	}
}

// yamlToJSONValue decodes YAML into the values a JSON decoder would produce.
func yamlToJSONValue(t *testing.T, text string) any {
	t.Helper()
	var v any
	require.NoError(t, yaml.Unmarshal([]byte(text), &v))
	var buf bytes.Buffer
	require.NoError(t, json.NewEncoder(&buf).Encode(v))
	out, err := jsonschema.UnmarshalJSON(&buf)
	require.NoError(t, err)
	return out
}
