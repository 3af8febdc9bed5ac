package deployment

import (
	"encoding/json"
	"fmt"
	"maps"
	"strconv"

	"github.com/styrmin/styrmin/drivers"
)

// JSONForm returns the form fields that values, given as JSON (as the API
// takes them: strings, numbers, booleans), stand for: start (the form's
// starting text, FormText's) with each given value written as its field
// would hold it. ReadForm then reads and checks the result as it reads a
// submitted form; this only decides what text a JSON value is:
//
//   - a boolean parameter takes true or false (false: the unchecked box,
//     which sends nothing);
//   - every other parameter takes a string as is, a number in plain
//     decimal notation and a boolean as true or false;
//   - null is the same as leaving the value out;
//   - no parameter type holds a list or an object.
//
// Bad values and names that params does not declare get a message in fields
// (parameter name → message), as ReadForm's.
//
// Deprecated: phase 2 of issue 16 removes it; read JSON values with ReadJSON
// (or give operations a JSONInput), which builds no form text.
func JSONForm(params []drivers.Parameter, start map[string]string, values map[string]any) (form map[string]string, fields map[string]string) {
	form, fields = maps.Clone(start), map[string]string{}
	if form == nil {
		form = map[string]string{}
	}
	declared := map[string]*drivers.Parameter{}
	for i := range params {
		declared[params[i].Name] = &params[i]
	}
	for name, v := range values {
		p, ok := declared[name]
		switch {
		case !ok:
			fields[name] = fmt.Sprintf("there is no parameter named %s", name)
		case v == nil:
		case p.Type == drivers.TypeBoolean:
			b, isBool := v.(bool)
			switch {
			case !isBool:
				fields[name] = fmt.Sprintf("%s must be true or false", titleOf(p))
			case b:
				form[name] = "true"
			default:
				delete(form, name)
			}
		default:
			text, err := jsonText(v)
			if err != nil {
				fields[name] = fmt.Sprintf("%s %s", titleOf(p), err)
				continue
			}
			form[name] = text
		}
	}
	return form, fields
}

// jsonText writes a JSON scalar as a form field holds it.
func jsonText(v any) (string, error) {
	switch v := v.(type) {
	case string:
		return v, nil
	case bool:
		return strconv.FormatBool(v), nil
	case float64:
		return formatValue(v), nil
	case json.Number:
		return v.String(), nil
	case []any:
		return "", fmt.Errorf("takes one value, not a list")
	case map[string]any:
		return "", fmt.Errorf("takes one value, not an object")
	}
	return "", fmt.Errorf("cannot take %v", v)
}
