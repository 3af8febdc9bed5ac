package api

import (
	"bytes"
	_ "embed"
	"encoding/json"
	"fmt"

	"github.com/getkin/kin-openapi/openapi3"
	"sigs.k8s.io/yaml"
)

// actionsYAML is the action primitives' OpenAPI document (actions.yaml):
// the calls driver actions make with an action token, which the REST API's
// document (openapi.yaml) leaves out.
//
//go:embed actions.yaml
var actionsYAML []byte

// ActionsDocument returns the action primitives' OpenAPI document, loaded
// and validated.
func ActionsDocument() (*openapi3.T, error) {
	doc, err := openapi3.NewLoader().LoadFromData(actionsYAML)
	if err != nil {
		return nil, fmt.Errorf("api: actions.yaml: %w", err)
	}
	if err := doc.Validate(openapi3.NewLoader().Context); err != nil {
		return nil, fmt.Errorf("api: actions.yaml: %w", err)
	}
	return doc, nil
}

// ActionsDocumentJSON is the action primitives' OpenAPI document as indented
// JSON (keys sorted): what the server serves at /api/action/v1/openapi.json.
func ActionsDocumentJSON() ([]byte, error) {
	raw, err := yaml.YAMLToJSON(actionsYAML)
	if err != nil {
		return nil, fmt.Errorf("api: actions.yaml: %w", err)
	}
	var out bytes.Buffer
	if err := json.Indent(&out, raw, "", "  "); err != nil {
		return nil, fmt.Errorf("api: actions.yaml: %w", err)
	}
	out.WriteByte('\n')
	return out.Bytes(), nil
}
