// Package valuesfile reads a --values file: a YAML (or JSON) mapping of
// parameter names to values, as the CLI and the driver author's commands take
// it, within a size bound.
package valuesfile

import (
	"fmt"
	"os"

	"sigs.k8s.io/yaml"
)

// MaxSize bounds a values file.
const MaxSize = 1 << 20

// Read returns the mapping in file; an empty one when file is "". Its errors
// are sentences for the person who named the file.
func Read(file string) (map[string]any, error) {
	values := map[string]any{}
	if file == "" {
		return values, nil
	}
	info, err := os.Stat(file)
	if err != nil {
		return nil, fmt.Errorf("Cannot read the values file: %v.", err)
	}
	if info.Size() > MaxSize {
		return nil, fmt.Errorf("The values file %s is larger than %d KiB.", file, MaxSize>>10)
	}
	data, err := os.ReadFile(file)
	if err != nil {
		return nil, fmt.Errorf("Cannot read the values file: %v.", err)
	}
	if err := yaml.Unmarshal(data, &values); err != nil {
		return nil, fmt.Errorf("The values file %s is not a YAML mapping of parameter names to values: %v.", file, err)
	}
	return values, nil
}
