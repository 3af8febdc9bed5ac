package redact

import (
	"bytes"
	"encoding/json"
	"fmt"
)

// JSON redacts every string value (not the keys) of a JSON document, each
// as String would, and returns the document re-encoded: the structure stays
// valid JSON whatever the secrets' forms. A nil Redactor replaces the common
// forms only.
func (r *Redactor) JSON(doc []byte) ([]byte, error) {
	dec := json.NewDecoder(bytes.NewReader(doc))
	dec.UseNumber() // numbers keep their text
	var v any
	if err := dec.Decode(&v); err != nil {
		return nil, fmt.Errorf("redact: %w", err)
	}
	return json.Marshal(r.value(v))
}

// value redacts the strings inside a decoded JSON value.
func (r *Redactor) value(v any) any {
	switch v := v.(type) {
	case string:
		return r.String(v)
	case []any:
		for i, e := range v {
			v[i] = r.value(e)
		}
	case map[string]any:
		for k, e := range v {
			v[k] = r.value(e)
		}
	}
	return v
}
