package drivers

import (
	"encoding/json"
	"os"
	"reflect"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

func TestGeneratedDocsAreCurrent(t *testing.T) {
	t.Parallel()
	for _, tt := range []struct {
		file     string
		generate func() ([]byte, error)
	}{
		{"../docs/driver-api.md", Reference},
		{"../docs/driver.schema.json", Schema},
	} {
		got, err := tt.generate()
		require.NoError(t, err)
		want, err := os.ReadFile(tt.file)
		require.NoError(t, err)
		require.Equal(t, string(want), string(got), "%s is out of date: run make generate", tt.file)
	}
}

func TestReferenceDocumentsEveryField(t *testing.T) {
	t.Parallel()
	ref, err := Reference()
	require.NoError(t, err)
	docs, err := readTypeDocs()
	require.NoError(t, err)
	for _, typ := range contractTypes() {
		require.NotEmpty(t, docs[typ.Name()], "type %s needs a doc comment", typ.Name())
		for i := range typ.NumField() {
			f := typ.Field(i)
			doc := docs[typ.Name()+"."+f.Name]
			require.NotEmpty(t, doc, "field %s.%s needs a doc comment", typ.Name(), f.Name)
			name, _, _ := strings.Cut(f.Tag.Get("yaml"), ",")
			require.Contains(t, string(ref), "| `"+name+"` |", "reference lacks %s", name)
			require.Contains(t, string(ref), cell(doc))
		}
	}
	for _, f := range valuesFunctions(nil) {
		require.Contains(t, string(ref), "| `"+f.usage+"` |")
	}
}

func TestSchemaDescribesTheContract(t *testing.T) {
	t.Parallel()
	raw, err := Schema()
	require.NoError(t, err)
	var s struct {
		Schema   string `json:"$schema"`
		ID       string `json:"$id"`
		Required []string
		Defs     map[string]struct {
			AdditionalProperties *bool `json:"additionalProperties"`
			Properties           map[string]struct {
				Description string
				Enum        []string
				Default     any
			}
		} `json:"$defs"`
	}
	require.NoError(t, json.Unmarshal(raw, &s))
	require.Equal(t, "https://json-schema.org/draft/2020-12/schema", s.Schema)
	require.Equal(t, SchemaID, s.ID)
	require.Equal(t, []string{"apiVersion", "kind", "metadata", "spec"}, s.Required)
	action := s.Defs["Action"]
	require.NotNil(t, action.AdditionalProperties)
	require.False(t, *action.AdditionalProperties, "unknown fields are errors")
	require.Equal(t, hooks, action.Properties["hook"].Enum)
	require.Equal(t, "blocking", action.Properties["mode"].Default)
	require.Equal(t, "10m", action.Properties["timeout"].Default)
	require.Equal(t, "TCP", s.Defs["Service"].Properties["protocol"].Default)
	require.Equal(t, parameterTypes, s.Defs["Parameter"].Properties["type"].Enum)
	require.NotEmpty(t, s.Defs["Parameter"].Properties["max_length"].Description)
	require.Contains(t, string(raw), `"then": {
            "required": [
              "choices"
            ]`, "enum parameters require choices")
}

// contractTypes lists the struct types of driver.styrmin.yml.
func contractTypes() []reflect.Type {
	return []reflect.Type{
		reflect.TypeFor[Driver](), reflect.TypeFor[Metadata](), reflect.TypeFor[Spec](), reflect.TypeFor[Info](),
		reflect.TypeFor[Link](), reflect.TypeFor[Author](), reflect.TypeFor[Helm](), reflect.TypeFor[ChartRef](),
		reflect.TypeFor[Component](), reflect.TypeFor[ComponentDefaults](), reflect.TypeFor[LabelSelector](),
		reflect.TypeFor[LabelSelectorRequirement](), reflect.TypeFor[Parameter](), reflect.TypeFor[Service](),
		reflect.TypeFor[Action](),
	}
}
