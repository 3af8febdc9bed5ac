package api

import (
	"bytes"
	"encoding/json"
	"fmt"
)

// DocumentJSON is the OpenAPI document as indented JSON: what the server
// serves at /api/v1/openapi.json and docs/openapi.json holds.
func DocumentJSON() ([]byte, error) {
	raw, err := GetSpecJSON()
	if err != nil {
		return nil, fmt.Errorf("api: the embedded document: %w", err)
	}
	var out bytes.Buffer
	if err := json.Indent(&out, raw, "", "  "); err != nil {
		return nil, fmt.Errorf("api: the embedded document: %w", err)
	}
	out.WriteByte('\n')
	return out.Bytes(), nil
}
