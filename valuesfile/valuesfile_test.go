package valuesfile_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/styrmin/styrmin/valuesfile"
)

func write(t *testing.T, content string) string {
	t.Helper()
	path := filepath.Join(t.TempDir(), "values.yaml")
	if err := os.WriteFile(path, []byte(content), 0o600); err != nil {
		t.Fatal(err)
	}
	return path
}

func TestReadGivesTheMappingOfAFile(t *testing.T) {
	values, err := valuesfile.Read(write(t, "replicas: 3\ntitle: Shop\ntls: true\n"))
	if err != nil {
		t.Fatal(err)
	}
	if values["replicas"] != float64(3) || values["title"] != "Shop" || values["tls"] != true || len(values) != 3 {
		t.Errorf("values = %#v", values)
	}
	none, err := valuesfile.Read("")
	if err != nil || len(none) != 0 {
		t.Errorf("no file: %v, %v; want an empty mapping", none, err)
	}
}

func TestReadRefusesWhatIsNotASmallMapping(t *testing.T) {
	huge := write(t, "a: "+strings.Repeat("x", valuesfile.MaxSize)+"\n")
	for name, tc := range map[string]struct{ file, want string }{
		"missing":       {filepath.Join(t.TempDir(), "nope.yaml"), "Cannot read the values file"},
		"larger":        {huge, "is larger than 1024 KiB"},
		"not a mapping": {write(t, "- one\n- two\n"), "is not a YAML mapping of parameter names to values"},
	} {
		t.Run(name, func(t *testing.T) {
			_, err := valuesfile.Read(tc.file)
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Errorf("error = %v, want one saying %q", err, tc.want)
			}
		})
	}
}
