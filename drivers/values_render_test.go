package drivers

import (
	"context"
	"errors"
	"runtime"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

func TestRenderValues(t *testing.T) {
	t.Parallel()
	data := ValuesData{
		Parameters: map[string]any{"db": "app", "n": int64(3), "on": true, "ratio": 0.5, "empty": ""},
		Version:    "16.2.0",
		Deployment: DeploymentRef{Name: "shop", Namespace: "team-a", Release: "shop-pg"},
		Driver:     DriverRef{Name: "postgresql", Version: "2.1.0"},
	}
	tests := []struct {
		name     string
		template string
		want     map[string]any
		wantErr  string
	}{
		{"empty template gives empty values", "", map[string]any{}, ""},
		{"typed parameters and data", "db: {{ .Parameters.db | quote }}\ncount: {{ .Parameters.n }}\nflag: {{ .Parameters.on }}\nyes_is_bool: y\nr: {{ .Parameters.ratio }}\ntag: {{ .Version }}\nns: {{ .Deployment.Namespace }}\nrel: {{ .Deployment.Release }}\ndrv: {{ .Driver.Name }}-{{ .Driver.Version }}\n",
			map[string]any{"db": "app", "count": float64(3), "flag": true, "yes_is_bool": true, "r": 0.5, "tag": "16.2.0", "ns": "team-a", "rel": "shop-pg", "drv": "postgresql-2.1.0"}, ""},
		{"helpers", "a: {{ default \"x\" .Parameters.empty }}\nb: {{ .Parameters.db | upper | b64enc }}\nc: {{ list 1 2 | toJson | squote }}\nd:{{ dict \"k\" .Parameters.db | toYaml | nindent 2 }}\ne: {{ ternary \"big\" \"small\" .Parameters.on }}\nf: {{ join \",\" (splitList \"-\" \"a-b\") }}\n",
			map[string]any{"a": "x", "b": "QVBQ", "c": "[1,2]", "d": map[string]any{"k": "app"}, "e": "big", "f": "a,b"}, ""},
		{"small range", "ports: [{{ range $i := 3 }}{{ if $i }}, {{ end }}{{ $i }}{{ end }}]\n", map[string]any{"ports": []any{float64(0), float64(1), float64(2)}}, ""},
		{"missing parameter", "a: {{ .Parameters.nope }}", nil, `values template line 1: map has no entry for key "nope"`},
		{"missing data field", "a: {{ .Deployment.Owner }}", nil, "can't evaluate field Owner"},
		{"not a mapping", "- a\n- b\n", nil, "output is a list, not a YAML mapping"},
		{"scalar output", "hello", nil, `output is "hello", not a YAML mapping`},
		{"invalid YAML output", "a: [\n", nil, "output is not valid YAML"},
		{"required fails", "a: {{ required \"db is needed\" .Parameters.empty }}", nil, "db is needed"},
		{"no environment access", "a: {{ env \"HOME\" }}", nil, `function "env" not defined`},
		{"no clock", "a: {{ now }}", nil, `function "now" not defined`},
		{"huge range refused", "{{ range $i := 100000000000 }}{{ end }}a: 1", nil, "range loops run more than 100000 iterations together"},
		{"range over a parameter is guarded", "{{ if true }}{{ range .Parameters.n }}{{ end }}{{ end }}a: 1", map[string]any{"a": float64(1)}, ""},
		{"template calls refused", "{{ define \"x\" }}{{ template \"x\" . }}{{ end }}a: {{ template \"x\" . }}", nil, "{{template}} calls are not allowed"},
		{"repeat bounded", "a: {{ repeat 100000 \"x\" }}", nil, "repeat: count 100000 is outside 0..10000"},
		{"output bounded", "a: " + strings.Repeat(`{{ repeat 10000 "xxxxxxxxxx" }}`, 6), nil, tooLarge},
	}
	tests = append(tests, hostileTemplates...)
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			got, err := renderValues(t.Context(), tt.template, data, untimed)
			if tt.wantErr != "" {
				require.ErrorContains(t, err, tt.wantErr)
				var te *TemplateError
				require.True(t, errors.As(err, &te), "a TemplateError: %v", err)
				return
			}
			require.NoError(t, err)
			require.Equal(t, tt.want, got)
		})
	}
}

// untimed is the time limit of the renders that test the other limits: 100,000
// range iterations can take longer than maxValuesTime under the race detector
// on a busy machine.
const untimed = time.Hour

// tooLarge is the error of a template that builds more than its budget of bytes.
const tooLarge = "would be larger than 1048576 bytes"

// hostileTemplates are values templates that would exhaust memory or CPU
// without the render budget.
var hostileTemplates = []struct {
	name     string
	template string
	want     map[string]any
	wantErr  string
}{
	{"huge indent", `{{ $x := indent 1000000000000 "x" }}a: 1`, nil, tooLarge},
	{"huge nindent of many lines", `{{ $x := nindent 100000000 (repeat 10000 "\n") }}a: 1`, nil, tooLarge},
	{"nested repeat", `{{ $x := repeat 10000 (repeat 10000 "xxxxxxxxxx") }}a: 1`, nil, tooLarge},
	{"intermediate strings count", `{{ range 200 }}{{ $x := repeat 10000 "x" }}{{ end }}a: 1`, nil, tooLarge},
	{"replace that multiplies", `{{ $x := replace "a" (repeat 10000 "b") (repeat 10000 "a") }}a: 1`, nil, tooLarge},
	{"empty replace that multiplies", `{{ $x := replace "" (repeat 10000 "b") (repeat 10000 "a") }}a: 1`, nil, tooLarge},
	{"nested ranges multiply", `{{ range 10000 }}{{ range 10000 }}{{ range 10000 }}{{ end }}{{ end }}{{ end }}a: 1`, nil, "range loops run more than 100000 iterations together"},
	{"range over a list counts", `{{ $l := splitList "," (repeat 1000 ",") }}{{ range $l }}{{ range $l }}{{ end }}{{ end }}a: 1`, nil, "range loops run more than 100000 iterations together"},
	{"doubling lists then toJson", "{{ $a := list \"xxxxxxxxxxxxxxxx\" }}" + strings.Repeat("{{ $a = list $a $a }}", 40) + "{{ $x := toJson $a }}a: 1", nil, tooLarge},
	{"doubling lists then toYaml", "{{ $a := list \"xxxxxxxxxxxxxxxx\" }}" + strings.Repeat("{{ $a = list $a $a }}", 40) + "{{ $x := toYaml $a }}a: 1", nil, tooLarge},
	{"doubling lists then join", "{{ $a := list \"xxxxxxxxxxxxxxxx\" }}" + strings.Repeat("{{ $a = list $a $a }}", 40) + "{{ $x := join \",\" $a }}a: 1", nil, tooLarge},
	{"doubling lists then quote", "{{ $a := list \"xxxxxxxxxxxxxxxx\" }}" + strings.Repeat("{{ $a = list $a $a }}", 40) + "{{ $x := quote $a }}a: 1", nil, tooLarge},
	{"doubling lists printed", "{{ $a := list \"xxxxxxxxxxxxxxxx\" }}" + strings.Repeat("{{ $a = list $a $a }}", 40) + "a: {{ $a }}", nil, tooLarge},
	{"doubling lists printf", "{{ $a := list \"xxxxxxxxxxxxxxxx\" }}" + strings.Repeat("{{ $a = list $a $a }}", 40) + `{{ $x := printf "%v" $a }}a: 1`, nil, tooLarge},
	{"printf width", `{{ $x := printf "%01000000d%01000000d" 1 2 }}a: 1`, nil, "printf: width or precision 1000000 is larger than 1000"},
	{"printf precision", `{{ $x := printf "%.1000000f" 1.0 }}a: 1`, nil, "printf: width or precision 1000000 is larger than 1000"},
	{"printf star width", `{{ $x := printf "%*d" 1000000 1 }}a: 1`, nil, "printf: * widths are not allowed"},
	{"print of a long list", "{{ $l := splitList \",\" (repeat 10000 \",,,,,\") }}{{ $x := print $l $l $l $l $l $l $l $l $l $l $l $l $l $l $l $l $l $l $l $l }}a: 1", nil, tooLarge},
	{"dict keys count", "{{ $a := list \"xxxxxxxxxxxxxxxx\" }}" + strings.Repeat("{{ $a = list $a $a }}", 40) + `{{ $x := dict $a 1 }}a: 1`, nil, tooLarge},
	{"large strings within the budget work", `a: {{ repeat 10000 "xxxxxxxxxx" | quote | upper | len }}`, map[string]any{"a": float64(100_002)}, ""},
	{"budgeted functions still work", `a: {{ printf "%05d-%s" 42 "x" | quote }}` + "\nb: {{ print 1 \"x\" }}\nc: {{ \"a<b\" | html }}", map[string]any{"a": "00042-x", "b": "1x", "c": "a&lt;b"}, ""},
}

func TestRenderValuesHostileTemplatesStaySmall(t *testing.T) {
	// Not parallel: it measures the memory the renders allocate.
	for _, tt := range hostileTemplates {
		if tt.wantErr == "" {
			continue
		}
		var before, after runtime.MemStats
		runtime.ReadMemStats(&before)
		_, err := renderValues(t.Context(), tt.template, ValuesData{}, untimed)
		runtime.ReadMemStats(&after)
		require.ErrorContains(t, err, tt.wantErr, tt.name)
		require.Less(t, after.TotalAlloc-before.TotalAlloc, uint64(64<<20), "%s allocates little", tt.name)
	}
}

// cancelAfter is a context that is cancelled after its Err has been asked n times.
type cancelAfter struct {
	context.Context
	n atomic.Int64
}

// Err reports context.Canceled once it has been asked n times.
func (c *cancelAfter) Err() error {
	if c.n.Add(-1) < 0 {
		return context.Canceled
	}
	return nil
}

func TestRenderValuesStopsWhenTheContextEnds(t *testing.T) {
	t.Parallel()
	ctx := &cancelAfter{Context: t.Context()}
	ctx.n.Store(1000)
	d := &Driver{Spec: Spec{Helm: Helm{Main: ChartRef{Values: "{{ range 300 }}{{ range 300 }}{{ end }}{{ end }}a: 1"}}}}
	_, err := d.RenderValues(ctx, ValuesData{})
	require.ErrorIs(t, err, context.Canceled)
	var te *TemplateError
	require.False(t, errors.As(err, &te), "a cancelled render is not the template's fault: %v", err)
	require.Less(t, ctx.n.Load(), int64(0))
	require.Greater(t, ctx.n.Load(), int64(-10), "the render stopped soon after the cancellation")
}

func TestParameterCheckAndInput(t *testing.T) {
	t.Parallel()
	one, ten := 1.0, 10.0
	three := 3
	tests := []struct {
		name    string
		param   Parameter
		value   any
		input   string // "" when only Check applies
		want    any
		wantErr string
	}{
		{"integer from YAML int", Parameter{Type: TypeInteger, Min: &one, Max: &ten}, 5, "5", int64(5), ""},
		{"integer from JSON float", Parameter{Type: TypeInteger}, 7.0, " 7 ", int64(7), ""},
		{"integer out of range", Parameter{Type: TypeInteger, Max: &ten}, 11, "11", nil, "more than the maximum 10"},
		{"integer not whole", Parameter{Type: TypeInteger}, 1.5, "1.5", nil, "whole number"},
		{"number", Parameter{Type: TypeNumber, Min: &one}, 2, "2", 2.0, ""},
		{"boolean", Parameter{Type: TypeBoolean}, true, "true", true, ""},
		{"boolean wrong", Parameter{Type: TypeBoolean}, "yes", "yes", nil, "true or false"},
		{"string length", Parameter{Type: TypeString, MaxLength: &three}, "abcd", "abcd", nil, "at most 3"},
		{"string pattern anchored", Parameter{Type: TypeString, Pattern: "[a-z]+"}, "ab1", "ab1", nil, "does not match"},
		{"string single line", Parameter{Type: TypeString}, "a\nb", "a\nb", nil, "must be one line"},
		{"text keeps lines", Parameter{Type: TypeText}, "a\nb", "a\nb", "a\nb", ""},
		{"secret pattern hides value", Parameter{Type: TypeSecret, Pattern: "[0-9]+"}, "hunter2", "hunter2", nil, "does not match the pattern [0-9]+"},
		{"secret type error hides value", Parameter{Type: TypeSecret}, 1234567, "", nil, "the value must be a string"},
		{"enum numeric choice", Parameter{Type: TypeEnum, Choices: []any{1, 2}}, 2.0, "2", 2, ""},
		{"enum unknown", Parameter{Type: TypeEnum, Choices: []any{"a"}}, "b", "b", nil, `not one of the choices: "a"`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			checks := []func() (any, error){func() (any, error) { return tt.param.Check(tt.value) }}
			if tt.input != "" {
				checks = append(checks, func() (any, error) { return tt.param.ParseInput(tt.input) })
			}
			for _, got := range checks {
				v, err := got()
				if tt.wantErr != "" {
					require.ErrorContains(t, err, tt.wantErr)
					require.NotContains(t, err.Error(), "hunter2", "errors never show secrets")
					require.NotContains(t, err.Error(), "1234567", "errors never show secrets")
					continue
				}
				require.NoError(t, err)
				require.Equal(t, tt.want, v)
			}
		})
	}
}

func TestDriverInfo(t *testing.T) {
	t.Parallel()
	d := &Driver{Metadata: Metadata{Name: "pg"}}
	require.Equal(t, "pg", d.Title())
	require.Empty(t, d.Summary())
	d.Spec.Info = Info{Title: "PostgreSQL", Description: "The **world's** most\nadvanced [database](https://x).\n\nMore text."}
	require.Equal(t, "PostgreSQL", d.Title())
	require.Equal(t, "The world's most advanced database.", d.Summary())
	d.Spec.Parameters = []Parameter{
		{Name: "a", Type: TypeInteger, Default: 3},
		{Name: "b", Type: TypeString},
		{Name: "c", Type: TypeBoolean, Default: false},
	}
	require.Equal(t, map[string]any{"a": int64(3), "c": false}, d.DefaultValues())
	require.Equal(t, d.DefaultValues(), d.SampleValues(), "no parameter is required")
	a := Action{}
	require.Equal(t, DefaultTimeout, a.TimeoutDuration())
	require.Equal(t, ModeBlocking, a.EffectiveMode())
	require.Equal(t, ProtocolTCP, (&Service{}).EffectiveProtocol())
}

func TestRenderValuesStopsAtItsTimeLimit(t *testing.T) {
	t.Parallel()
	_, err := renderValues(t.Context(), "{{ range 300 }}{{ range 300 }}{{ end }}{{ end }}a: 1", ValuesData{}, time.Nanosecond)
	require.ErrorContains(t, err, "rendering takes longer than 1ns; simplify the template")
	var te *TemplateError
	require.True(t, errors.As(err, &te), "a TemplateError: %v", err)
}

// A chart is rendered at import to see what it creates, before anyone has
// entered values: a required parameter without a default gets a placeholder
// its own check accepts, or none.
func TestSampleValuesHavePlaceholdersForRequiredParametersWithoutDefaults(t *testing.T) {
	t.Parallel()
	ptr := func(f float64) *float64 { return &f }
	length := func(n int) *int { return &n }
	d := &Driver{Spec: Spec{Parameters: []Parameter{
		{Name: "password", Type: TypeSecret, Required: true},
		{Name: "token", Type: TypeSecret, Required: true, MinLength: length(32)},
		{Name: "code", Type: TypeString, Required: true, MaxLength: length(3)},
		{Name: "port", Type: TypeInteger, Required: true, Min: ptr(1024), Max: ptr(65535)},
		{Name: "below_zero", Type: TypeNumber, Required: true, Max: ptr(-2.5)},
		{Name: "mode", Type: TypeEnum, Required: true, Choices: []any{"fast", "safe"}},
		{Name: "on", Type: TypeBoolean, Required: true},
		{Name: "replicas", Type: TypeInteger, Required: true, Default: 3},
		{Name: "optional", Type: TypeString},
		{Name: "host", Type: TypeString, Required: true, Pattern: `^[a-z]+\.example$`},
		{Name: "impossible", Type: TypeInteger, Required: true, Min: ptr(0.2), Max: ptr(0.8)},
	}}}
	require.Equal(t, map[string]any{
		"password":   "placeholder",
		"token":      "placeholder" + strings.Repeat("x", 21),
		"code":       "pla",
		"port":       int64(1024),
		"below_zero": -2.5,
		"mode":       "fast",
		"on":         false,
		"replicas":   int64(3),
	}, d.SampleValues())
}
