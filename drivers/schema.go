package drivers

import (
	"encoding/json"
	"fmt"
	"reflect"

	"github.com/invopop/jsonschema"
)

// SchemaID is the $id of the driver file's JSON Schema.
const SchemaID = "https://styrmin.io/schemas/driver.schema.json"

// Schema returns the JSON Schema (2020-12) of driver.styrmin.yml, indented,
// with the types' doc comments as descriptions.
func Schema() ([]byte, error) {
	docs, err := readTypeDocs()
	if err != nil {
		return nil, fmt.Errorf("drivers: schema: %w", err)
	}
	r := &jsonschema.Reflector{
		FieldNameTag:               "yaml",
		RequiredFromJSONSchemaTags: true,
		ExpandedStruct:             true,
		LookupComment: func(t reflect.Type, field string) string {
			if field == "" {
				return docs[t.Name()]
			}
			return docs[t.Name()+"."+field]
		},
		Mapper: schemaOf,
	}
	s := r.Reflect(&Driver{})
	addConditionalRules(s.Definitions)
	s.ID = SchemaID
	s.Title = "driver.styrmin.yml v1"
	out, err := json.MarshalIndent(s, "", "  ")
	if err != nil {
		return nil, fmt.Errorf("drivers: schema: %w", err)
	}
	return append(out, '\n'), nil
}

// addConditionalRules adds the requirements that depend on another field's value.
func addConditionalRules(defs jsonschema.Definitions) {
	requireWhen := func(def, field string, cond *jsonschema.Schema, required string) {
		props := jsonschema.NewProperties()
		props.Set(field, cond)
		defs[def].AllOf = append(defs[def].AllOf, &jsonschema.Schema{
			If:   &jsonschema.Schema{Properties: props, Required: []string{field}},
			Then: &jsonschema.Schema{Required: []string{required}},
		})
	}
	requireWhen("Parameter", "type", &jsonschema.Schema{Const: string(TypeEnum)}, "choices")
	requireWhen("ChartRef", "location", &jsonschema.Schema{Pattern: "^https://"}, "chart")
}

// anyType is the type of fields that hold one scalar of any type.
var anyType = reflect.TypeFor[any]()

// schemaOf gives the schemas of enumerations and scalar values; nil leaves a type to the reflector.
func schemaOf(t reflect.Type) *jsonschema.Schema {
	if t == anyType {
		return &jsonschema.Schema{OneOf: []*jsonschema.Schema{{Type: "string"}, {Type: "number"}, {Type: "boolean"}}}
	}
	if e, ok := reflect.Zero(t).Interface().(enum); ok {
		values := make([]any, len(e.allowed()))
		for i, v := range e.allowed() {
			values[i] = v
		}
		return &jsonschema.Schema{Type: "string", Enum: values}
	}
	return nil
}
