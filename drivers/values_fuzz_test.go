package drivers

import (
	"errors"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

// FuzzRenderValues checks that a values template, whatever its text, never
// panics, ends within its time budget and gives values of bounded size or a
// *TemplateError; its seeds (the hostile templates among them) run with every go test.
func FuzzRenderValues(f *testing.F) {
	for _, seed := range []string{
		"", "a: 1", "a: {{ .Parameters.s | quote }}\nb: {{ .Parameters.n }}", "{{ range $i := .Parameters.n }}- {{ $i }}\n{{ end }}",
		"{{ define \"x\" }}{{ template \"x\" }}{{ end }}", "a: {{ printf \"%v-%d\" .Parameters .Parameters.n }}",
		"a: {{ toYaml .Parameters | nindent 2 }}", "a: {{ dict \"k\" (list 1 2) | toJson }}", "{{ break }}", "{{ range 3 }}{{ break }}{{ end }}",
		"a: &a [1]\nb: [*a, *a]", "{{ . }}", "{{ printf \"%[1]*d\" 5 1 }}",
	} {
		f.Add(seed)
	}
	for _, tt := range hostileTemplates {
		f.Add(tt.template)
	}
	data := ValuesData{Parameters: map[string]any{"s": "text", "n": int64(3), "on": true, "l": "a\nb"}, Version: "1.0.0"}
	f.Fuzz(func(t *testing.T, text string) {
		d := &Driver{Spec: Spec{Helm: Helm{Main: ChartRef{Values: text}}}}
		start := time.Now()
		vals, err := d.RenderValues(t.Context(), data)
		require.Less(t, time.Since(start), 2*maxValuesTime, "a render ends within its time budget")
		if err != nil {
			var te *TemplateError
			require.True(t, errors.As(err, &te), "a failed render is a *TemplateError: %v", err)
			return
		}
		const bound = 64 << 20 // the output is at most 1 MiB of YAML; aliases may expand it a little
		require.LessOrEqual(t, printedSize(vals, bound), bound, "values of bounded size")
	})
}
