package drivers

import (
	"errors"
	"os"
	"path/filepath"
	"slices"
	"testing"

	"github.com/stretchr/testify/require"
)

// FuzzParse checks that Parse never panics and that every problem it reports
// is located in the file; its seeds run with every go test.
func FuzzParse(f *testing.F) {
	for _, pattern := range []string{"testdata/*/" + SpecFile, "testdata/lint/*/" + SpecFile, "bundled/*/" + SpecFile} {
		files, err := filepath.Glob(pattern)
		require.NoError(f, err)
		for _, file := range files {
			data, err := os.ReadFile(file)
			require.NoError(f, err)
			f.Add(data)
		}
	}
	for _, seed := range []string{
		"", "---", "[", "a: &a [*a]", "~", "apiVersion: 1\nkind: [x]\nmetadata: 3\nspec: {}\n",
		baseDriver,
		withSpec("parameters:\n  - {name: n, type: integer, min: 1e308, max: -1e308, default: 0x10}"),
		withSpec("parameters:\n  - {name: s, type: string, pattern: \"(a+)+$\", min_length: 99999999999999999999}"),
		baseDriver + "      values: |\n        {{ range $i := 3 }}{{ $i }}{{ end }}: {{ index .Parameters \"x\" }}\n",
		baseDriver + "      values: \"{{ template \\\"values\\\" . }}\"\n",
	} {
		f.Add([]byte(seed))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		d, err := Parse(t.Context(), "fuzz.yml", data)
		require.NotNil(t, d)
		if err == nil {
			require.NotEmpty(t, d.Title())
			for name, v := range d.DefaultValues() {
				i := slices.IndexFunc(d.Spec.Parameters, func(p Parameter) bool { return p.Name == name })
				_, err := d.Spec.Parameters[i].Check(v)
				require.NoError(t, err, "a default that passed validation checks again")
			}
			return
		}
		var ps Problems
		require.True(t, errors.As(err, &ps), "Parse returns Problems, got %v", err)
		require.NotEmpty(t, ps)
		for i, p := range ps {
			require.Equal(t, "fuzz.yml", p.File)
			require.GreaterOrEqual(t, p.Line, 1, "%v", p)
			require.GreaterOrEqual(t, p.Column, 1, "%v", p)
			require.NotEmpty(t, p.Message)
			if i > 0 {
				require.LessOrEqual(t, ps[i-1].Line, p.Line, "problems are sorted by line")
			}
		}
	})
}
