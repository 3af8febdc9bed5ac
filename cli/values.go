package cli

import (
	"strconv"
	"strings"

	"github.com/styrmin/styrmin/valuesfile"
)

// itoa is n in decimal.
func itoa(n int64) string { return strconv.FormatInt(n, 10) }

// unexpected is an answer the API does not describe.
func unexpected(status string) error {
	return fail(ExitUnavailable, "The server answered %s, which this client does not expect: is it a Styrmin server of this version?", status)
}

// parameterValues are the values of a --values file (a YAML or JSON
// mapping of parameter names to values), then the --set NAME=VALUE pairs
// over them. A --set value true or false is a boolean; any other is text,
// which the server reads as the parameter's type says.
func parameterValues(file string, sets []string) (map[string]any, error) {
	values, err := valuesfile.Read(file)
	if err != nil {
		return nil, usage("%v", err)
	}
	for _, s := range sets {
		name, value, ok := strings.Cut(s, "=")
		if !ok || name == "" {
			return nil, usage("--set %q is not NAME=VALUE.", s)
		}
		switch value {
		case "true", "false":
			values[name] = value == "true"
		default:
			values[name] = value
		}
	}
	return values, nil
}
