package drivers

import (
	"errors"
	"fmt"
	"os"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

// baseDriver is a minimal valid driver file of 11 lines; cases append spec fields from line 12.
const baseDriver = `apiVersion: styrmin.io/v1
kind: Driver
metadata:
  name: demo
spec:
  version: 1.0.0
  supported_versions: ">=1.0.0"
  helm:
    main:
      location: oci://registry.example.com/charts/demo
      version: 1.2.3
`

// withSpec appends spec fields, written without their two-space indentation, to baseDriver.
func withSpec(lines string) string {
	return baseDriver + specLines(lines)
}

// specLines indents lines as fields of spec.
func specLines(lines string) string {
	var b strings.Builder
	for _, l := range strings.Split(strings.TrimSuffix(lines, "\n"), "\n") {
		b.WriteString("  " + l + "\n")
	}
	return b.String()
}

// want is one expected problem: its line, field path and a part of its message.
type want struct {
	line  int
	field string
	msg   string
}

func TestParseRules(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name string
		yaml string
		want []want
	}{
		{"minimal driver is valid", baseDriver, nil},
		{"spec example is valid", mustRead(t, "testdata/good/driver.styrmin.yml"), nil},
		{"empty file", "", []want{{1, "", "file is empty"}}},
		{"invalid YAML", "apiVersion: [\n", []want{{1, "", "invalid YAML"}}},
		{"two documents", baseDriver + "---\nkind: Driver\n", []want{{12, "", "more than one YAML document"}}},
		{"top level not a mapping", "- a\n", []want{{1, "", "must be a mapping of fields, not a list"}}},
		{"wrong apiVersion", strings.Replace(baseDriver, "styrmin.io/v1", "styrmin.io/v2", 1), []want{{1, "apiVersion", `"styrmin.io/v2" is not supported; use styrmin.io/v1`}}},
		{"wrong kind", strings.Replace(baseDriver, "kind: Driver", "kind: Chart", 1), []want{{2, "kind", `"Chart" is not supported`}}},
		{"missing required fields", "apiVersion: styrmin.io/v1\n", []want{
			{1, "kind", `missing required field "kind"`},
			{1, "metadata", `missing required field "metadata"`},
			{1, "spec", `missing required field "spec"`},
		}},
		{"missing nested required fields", strings.Replace(baseDriver, "      version: 1.2.3\n", "", 1), []want{{10, "spec.helm.main.version", `missing required field "version"`}}},
		{"empty required field", strings.Replace(baseDriver, "name: demo", "name:", 1), []want{{4, "metadata.name", "must not be empty"}}},
		{"every unknown field is reported", strings.Replace(baseDriver, "kind: Driver", "kind: Driver\nkidn: x\nextra: 1", 1) + "  infos: {}\n", []want{
			{3, "kidn", `unknown field "kidn"; did you mean "kind"?`},
			{4, "extra", `unknown field "extra"; allowed: apiVersion, kind, metadata, spec`},
			{14, "spec.infos", `did you mean "info"?`},
		}},
		{"camelCase field suggests snake_case", withSpec("parameters:\n  - {name: a, type: string, maxLength: 3}"), []want{{12 + 1, "spec.parameters[0].maxLength", `did you mean "max_length"?`}}},
		{"duplicate field", strings.Replace(baseDriver, "kind: Driver", "kind: Driver\nkind: Driver", 1), []want{{3, "kind", "given twice"}}},
		{"metadata.name not DNS-1123", strings.Replace(baseDriver, "name: demo", "name: Demo_App", 1), []want{{4, "metadata.name", "DNS-1123 label"}}},
		{"labels must be strings", strings.Replace(baseDriver, "name: demo", "name: demo\n  labels: {tier: [a]}", 1), []want{{5, "metadata.labels.tier", "must be a string, not a list"}}},
		{"version not strict semver", strings.Replace(baseDriver, "version: 1.0.0", "version: v1.0", 1), []want{{6, "spec.version", "not a strict semantic version"}}},
		{"prerelease version is valid", strings.Replace(baseDriver, "version: 1.0.0", "version: 2.1.0-rc.1", 1), nil},
		{"supported_versions not a constraint", strings.Replace(baseDriver, `">=1.0.0"`, `">=> 1"`, 1), []want{{7, "spec.supported_versions", "not a semver constraint"}}},
		{"supported_versions alternatives are valid", strings.Replace(baseDriver, `">=1.0.0"`, `"^3 || ^4"`, 1), nil},
		{"icon https URL is valid", withSpec("info: {icon: \"https://example.com/i.svg\"}"), nil},
		{"icon http URL", withSpec("info: {icon: \"http://example.com/i.svg\"}"), []want{{12, "spec.info.icon", "not an absolute https URL"}}},
		{"icon outside the bundle", withSpec("info: {icon: ../icon.svg}"), []want{{12, "spec.info.icon", "not a path inside the bundle"}}},
		{"link URL must be http(s)", withSpec("info:\n  links: [{title: Docs, url: \"ftp://example.com\"}]"), []want{{13, "spec.info.links[0].url", "not an absolute http or https URL"}}},
		{"link needs a title", withSpec("info:\n  links: [{url: \"https://example.com\"}]"), []want{{13, "spec.info.links[0].title", `missing required field "title"`}}},
		{"author email", withSpec("info:\n  authors: [{name: Jane, email: jane}]"), []want{{13, "spec.info.authors[0].email", "not an e-mail address"}}},
		{"author URL", withSpec("info:\n  authors: [{name: Jane, url: example.com}]"), []want{{13, "spec.info.authors[0].url", "not an absolute http or https URL"}}},
		{"local chart is valid", strings.Replace(baseDriver, "oci://registry.example.com/charts/demo", "./chart", 1), nil},
		{"chart location of unknown form", strings.Replace(baseDriver, "oci://registry.example.com/charts/demo", "chart", 1), []want{{10, "spec.helm.main.location", "not a chart location"}}},
		{"http chart repository", strings.Replace(baseDriver, "oci://registry.example.com/charts/demo", "http://charts.example.com", 1), []want{{10, "spec.helm.main.location", "not a chart location"}}},
		{"oci location without repository", strings.Replace(baseDriver, "oci://registry.example.com/charts/demo", "oci://registry.example.com", 1), []want{{10, "spec.helm.main.location", "names no repository"}}},
		{"https repository needs chart", strings.Replace(baseDriver, "oci://registry.example.com/charts/demo", "https://charts.example.com", 1), []want{{10, "spec.helm.main.chart", "is required for an https:// chart repository"}}},
		{"https repository with chart is valid", strings.Replace(baseDriver, "oci://registry.example.com/charts/demo", "https://charts.example.com\n      chart: demo", 1), nil},
		{"chart version must be exact", strings.Replace(baseDriver, "version: 1.2.3", "version: ~1.2", 1), []want{{11, "spec.helm.main.version", "not an exact chart version"}}},
		{"remote chart with a digest", baseDriver + "      digest: sha256:" + strings.Repeat("ab", 32) + "\n", nil},
		{"chart digest of another form", baseDriver + "      digest: md5:d41d8cd98f00b204e9800998ecf8427e\n", []want{{12, "spec.helm.main.digest", `"md5:d41d8cd98f00b204e9800998ecf8427e" is not a chart digest; write sha256:`}}},
		{"chart digest in upper case", baseDriver + "      digest: sha256:" + strings.Repeat("AB", 32) + "\n", []want{{12, "spec.helm.main.digest", "is not a chart digest"}}},
		{"bundled chart with a digest", strings.Replace(baseDriver, "oci://registry.example.com/charts/demo", "./chart", 1) + "      digest: sha256:" + strings.Repeat("ab", 32) + "\n", []want{{12, "spec.helm.main.digest", "applies to remote charts only"}}},
		{"component names unique", withSpec("components:\n  - {name: web, selector: {matchLabels: {app: web}}}\n  - {name: web, selector: {matchLabels: {app: web}}}"), []want{{14, "spec.components[1].name", "already the name of spec.components[0]"}}},
		{"component needs a selector", withSpec("components:\n  - {name: web}"), []want{{13, "spec.components[0].selector", `missing required field "selector"`}}},
		{"empty selector", withSpec("components:\n  - {name: web, selector: {}}"), []want{{13, "spec.components[0].selector", "selects nothing"}}},
		{"selector label key", withSpec("components:\n  - name: web\n    selector: {matchLabels: {\"bad key\": web}}"), []want{{14, `spec.components[0].selector.matchLabels["bad key"]`, "not a valid label key"}}},
		{"selector expression operator", withSpec("components:\n  - name: web\n    selector:\n      matchExpressions: [{key: app, operator: Has}]"), []want{{15, "spec.components[0].selector.matchExpressions[0].operator", "use one of: In, NotIn, Exists, DoesNotExist"}}},
		{"selector In needs values", withSpec("components:\n  - name: web\n    selector:\n      matchExpressions: [{key: app, operator: In}]"), []want{{15, "spec.components[0].selector.matchExpressions[0].values", "is required with operator In"}}},
		{"selector Exists takes no values", withSpec("components:\n  - name: web\n    selector:\n      matchExpressions: [{key: app, operator: Exists, values: [a]}]"), []want{{15, "spec.components[0].selector.matchExpressions[0].values", "must be empty with operator Exists"}}},
		{"negative replicas", withSpec("components:\n  - name: web\n    selector: {matchLabels: {app: web}}\n    defaults: {replicas: -1}"), []want{{15, "spec.components[0].defaults.replicas", "must be 0 or more"}}},
		{"replicas not a number", withSpec("components:\n  - name: web\n    selector: {matchLabels: {app: web}}\n    defaults: {replicas: two}"), []want{{15, "spec.components[0].defaults.replicas", `must be a whole number, not "two"`}}},
		{"parameter name", withSpec("parameters:\n  - {name: Bad-Name, type: string}"), []want{{13, "spec.parameters[0].name", "not a parameter name"}}},
		{"parameter names unique", withSpec("parameters:\n  - {name: a, type: string}\n  - {name: a, type: text}"), []want{{14, "spec.parameters[1].name", "already the name of spec.parameters[0]"}}},
		{"parameter type", withSpec("parameters:\n  - {name: a, type: str}"), []want{{13, "spec.parameters[0].type", "use one of: string, text, integer, number, boolean, enum, secret"}}},
		{"parameter needs a type", withSpec("parameters:\n  - {name: a}"), []want{{13, "spec.parameters[0].type", `missing required field "type"`}}},
		{"enum needs choices", withSpec("parameters:\n  - {name: a, type: enum}"), []want{{13, "spec.parameters[0].choices", "is required for type enum"}}},
		{"enum choices unique", withSpec("parameters:\n  - {name: a, type: enum, choices: [x, x]}"), []want{{13, "spec.parameters[0].choices[1]", "repeats choices[0]"}}},
		{"enum choices are scalars", withSpec("parameters:\n  - {name: a, type: enum, choices: [[x]]}"), []want{{13, "spec.parameters[0].choices[0]", "must be a single value"}}},
		{"enum choice null", withSpec("parameters:\n  - {name: a, type: enum, choices: [x, ~]}"), []want{{13, "spec.parameters[0].choices[1]", "must not be null"}}},
		{"enum default among choices", withSpec("parameters:\n  - {name: a, type: enum, choices: [x, y], default: z}"), []want{{13, "spec.parameters[0].default", `"z" is not one of the choices: "x", "y"`}}},
		{"enum numeric default is valid", withSpec("parameters:\n  - {name: a, type: enum, choices: [1, 2], default: 2}"), nil},
		{"choices only for enum", withSpec("parameters:\n  - {name: a, type: string, choices: [x]}"), []want{{13, "spec.parameters[0].choices", "not allowed for type string"}}},
		{"string default type", withSpec("parameters:\n  - {name: a, type: string, default: 8}"), []want{{13, "spec.parameters[0].default", "must be a string; quote it"}}},
		{"string default pattern", withSpec("parameters:\n  - {name: a, type: string, pattern: \"[a-z]+\", default: A1}"), []want{{13, "spec.parameters[0].default", "does not match the pattern"}}},
		{"string default length", withSpec("parameters:\n  - {name: a, type: string, min_length: 3, default: ab}"), []want{{13, "spec.parameters[0].default", "at least 3"}}},
		{"invalid pattern", withSpec("parameters:\n  - {name: a, type: string, pattern: \"[a-\"}"), []want{{13, "spec.parameters[0].pattern", "not a valid regular expression"}}},
		{"min_length above max_length", withSpec("parameters:\n  - {name: a, type: string, min_length: 5, max_length: 2}"), []want{{13, "spec.parameters[0].max_length", "less than min_length 5"}}},
		{"negative length", withSpec("parameters:\n  - {name: a, type: text, max_length: -1}"), []want{{13, "spec.parameters[0].max_length", "must be 0 or more"}}},
		{"min_length not for text", withSpec("parameters:\n  - {name: a, type: text, min_length: 1}"), []want{{13, "spec.parameters[0].min_length", "not allowed for type text"}}},
		{"min not for string", withSpec("parameters:\n  - {name: a, type: string, min: 1}"), []want{{13, "spec.parameters[0].min", "not allowed for type string"}}},
		{"min above max", withSpec("parameters:\n  - {name: a, type: number, min: 5, max: 1.5}"), []want{{13, "spec.parameters[0].max", "less than min 5"}}},
		{"integer bounds are whole", withSpec("parameters:\n  - {name: a, type: integer, min: 0.5}"), []want{{13, "spec.parameters[0].min", "needs a whole number"}}},
		{"integer default whole", withSpec("parameters:\n  - {name: a, type: integer, default: 1.5}"), []want{{13, "spec.parameters[0].default", "must be a whole number"}}},
		{"integer default in range", withSpec("parameters:\n  - {name: a, type: integer, min: 1, max: 10, default: 11}"), []want{{13, "spec.parameters[0].default", "more than the maximum 10"}}},
		{"number default below min", withSpec("parameters:\n  - {name: a, type: number, min: 0.5, default: 0.1}"), []want{{13, "spec.parameters[0].default", "less than the minimum 0.5"}}},
		{"boolean default", withSpec("parameters:\n  - {name: a, type: boolean, default: \"yes\"}"), []want{{13, "spec.parameters[0].default", "must be true or false"}}},
		{"required not a boolean", withSpec("parameters:\n  - {name: a, type: string, required: yes}"), []want{{13, "spec.parameters[0].required", `must be true or false, not "yes"`}}},
		{"service component must exist", withSpec("components:\n  - {name: web, selector: {matchLabels: {app: web}}}\nservices:\n  - {name: http, component: wbe, port: 80}"), []want{{15, "spec.services[0].component", `"wbe" is not a component of this driver; declare it in spec.components; did you mean "web"?`}}},
		{"service port range", withSpec("components:\n  - {name: web, selector: {matchLabels: {app: web}}}\nservices:\n  - {name: http, component: web, port: 0}"), []want{{15, "spec.services[0].port", "use 1 to 65535"}}},
		{"service port not a number", withSpec("components:\n  - {name: web, selector: {matchLabels: {app: web}}}\nservices:\n  - {name: http, component: web, port: http}"), []want{{15, "spec.services[0].port", `must be a whole number, not "http"`}}},
		{"required mapping given as empty string", strings.Replace(baseDriver, "metadata:\n  name: demo", "metadata: \"\"", 1), []want{{3, "metadata", "must not be empty"}}},
		{"service protocol", withSpec("components:\n  - {name: web, selector: {matchLabels: {app: web}}}\nservices:\n  - {name: http, component: web, port: 80, protocol: tcp}"), []want{{15, "spec.services[0].protocol", "use one of: TCP, UDP"}}},
		{"service path needs http scheme", withSpec("components:\n  - {name: web, selector: {matchLabels: {app: web}}}\nservices:\n  - {name: db, component: web, port: 5432, scheme: postgres, path: /x}"), []want{{15, "spec.services[0].path", "only allowed with scheme http or https"}}},
		{"service path starts with slash", withSpec("components:\n  - {name: web, selector: {matchLabels: {app: web}}}\nservices:\n  - {name: http, component: web, port: 80, scheme: http, path: admin}"), []want{{15, "spec.services[0].path", "must start with /"}}},
		{"service names unique", withSpec("components:\n  - {name: web, selector: {matchLabels: {app: web}}}\nservices:\n  - {name: http, component: web, port: 80}\n  - {name: http, component: web, port: 81}"), []want{{16, "spec.services[1].name", "already the name"}}},
		{"service needs a port", withSpec("components:\n  - {name: web, selector: {matchLabels: {app: web}}}\nservices:\n  - {name: http, component: web}"), []want{{15, "spec.services[0].port", `missing required field "port"`}}},
		{"action hook", withSpec("actions:\n  - {name: b, hook: pre-instal, function: \"actions:b\"}"), []want{{13, "spec.actions[0].hook", "use one of: pre-install, post-install"}}},
		{"action mode", withSpec("actions:\n  - {name: b, hook: manual, mode: strict, function: \"actions:b\"}"), []want{{13, "spec.actions[0].mode", "use one of: blocking, best-effort"}}},
		{"action function form", withSpec("actions:\n  - {name: b, hook: manual, function: actions.b}"), []want{{13, "spec.actions[0].function", "not module:function"}}},
		{"dotted action module is valid", withSpec("actions:\n  - {name: b, hook: manual, function: \"pkg.mod:b\", timeout: 1h30m}"), nil},
		{"action timeout", withSpec("actions:\n  - {name: b, hook: manual, function: \"actions:b\", timeout: 10}"), []want{{13, "spec.actions[0].timeout", "not a positive Go duration"}}},
		{"action timeout of 24h is the longest", withSpec("actions:\n  - {name: b, hook: manual, function: \"actions:b\", timeout: 24h}"), nil},
		{"action timeout over 24h", withSpec("actions:\n  - {name: b, hook: manual, function: \"actions:b\", timeout: 24h1s}"), []want{{13, "spec.actions[0].timeout", `"24h1s" is longer than the 24h an action may run`}}},
		{"action names unique", withSpec("actions:\n  - {name: b, hook: manual, function: \"actions:b\"}\n  - {name: b, hook: manual, function: \"actions:c\"}"), []want{{14, "spec.actions[1].name", "already the name"}}},
		{"prompts are checked like parameters", withSpec("actions:\n  - name: b\n    hook: manual\n    function: \"actions:b\"\n    prompts: [{name: x, type: integer, default: a}]"), []want{{16, "spec.actions[0].prompts[0].default", "must be a whole number"}}},
		{"artefacts pruned by an action taking the retention", withSpec(backupAction("artefacts: {prune: p}, prompts: [{name: database, type: string, required: true}]") + pruneAction("manual", "[{name: keep_last, type: integer, default: 7}, {name: keep_days, type: integer, min: 0}, {name: database, type: string, required: true}]")), nil},
		{"artefacts need a prune action", withSpec(backupAction("artefacts: {}")), []want{{13, "spec.actions[0].artefacts.prune", `missing required field "prune"`}}},
		{"prune action must exist", withSpec(backupAction("artefacts: {prune: prun}") + pruneAction("manual", keepPrompts)), []want{{13, "spec.actions[0].artefacts.prune", `"prun" is not an action of this driver; declare it in spec.actions; allowed: b, p`}}},
		{"prune action is another action", withSpec(backupAction("artefacts: {prune: b}")), []want{{13, "spec.actions[0].artefacts.prune", `"b" is this action`}}},
		{"artefacts only on manual actions", withSpec("actions:\n  - {name: b, hook: pre-upgrade, function: \"actions:b\", artefacts: {prune: p}}" + pruneAction("manual", keepPrompts)), []want{{13, "spec.actions[0].artefacts.prune", "only manual actions may declare artefacts"}}},
		{"prune action must be manual", withSpec(backupAction("artefacts: {prune: p}") + pruneAction("post-install", keepPrompts)), []want{{13, "spec.actions[0].artefacts.prune", `"p" is a post-install action; the prune action must be manual`}}},
		{"prune action takes both integer retention prompts allowing 0", withSpec(backupAction("artefacts: {prune: p}") + pruneAction("manual", "[{name: keep_last, type: integer, min: 1}, {name: keep_days, type: string}]")), []want{{13, "spec.actions[0].artefacts.prune", `"p" must take the integer prompt(s) keep_last and keep_days, allowing 0`}}},
		{"a secret prompt is shared with a secret one", withSpec(backupAction("artefacts: {prune: p}, prompts: [{name: storage_key, type: secret, required: true}]") + pruneAction("manual", "[{name: keep_last, type: integer}, {name: keep_days, type: integer}, {name: storage_key, type: secret, required: true}]")), nil},
		{"a secret prompt is never shared with a plain one", withSpec(backupAction("artefacts: {prune: p}, prompts: [{name: storage_key, type: secret, required: true}]") + pruneAction("manual", "[{name: keep_last, type: integer}, {name: keep_days, type: integer}, {name: storage_key, type: string, required: true}]")), []want{{13, "spec.actions[0].artefacts.prune", `"p" requires the prompt storage_key without a default, which a scheduled prune cannot give; add a default or the same prompt (secret if it is secret)`}}},
		{"prune action's other prompts need defaults", withSpec(backupAction("artefacts: {prune: p}") + pruneAction("manual", "[{name: keep_last, type: integer}, {name: keep_days, type: integer}, {name: bucket, type: string, required: true}]")), []want{{13, "spec.actions[0].artefacts.prune", `"p" requires the prompt bucket without a default`}}},
		{"values template references an undeclared parameter", baseDriver + "      values: |\n        a: {{ .Parameters.db }}\n        b: {{ .Parameters.nope }}\n" + specLines("parameters:\n  - {name: db, type: string}"), []want{{14, "spec.helm.main.values", `line 2 of the template: map has no entry for key "nope"`}}},
		{"values template syntax", baseDriver + "      values: \"a: {{ .Parameters\"\n", []want{{12, "spec.helm.main.values", "line 1 of the template"}}},
		{"values template unknown function", baseDriver + "      values: |\n        a: {{ env \"HOME\" }}\n", []want{{13, "spec.helm.main.values", `function "env" not defined`}}},
		{"values must render a mapping", baseDriver + "      values: |\n        - a\n", []want{{12, "spec.helm.main.values", "output is a list, not a YAML mapping"}}},
		{"values render with typed defaults", baseDriver + "      values: |\n        replicas: {{ .Parameters.n }}\n        flag: {{ .Parameters.on | quote }}\n" + specLines("parameters:\n  - {name: n, type: integer, default: 3}\n  - {name: on, type: boolean}"), nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			_, err := Parse(t.Context(), "driver.styrmin.yml", []byte(tt.yaml))
			if tt.want == nil {
				require.NoError(t, err)
				return
			}
			var ps Problems
			require.True(t, errors.As(err, &ps), "want Problems, got %v", err)
			require.Len(t, ps, len(tt.want), "problems:\n%v", ps)
			for i, w := range tt.want {
				require.Equal(t, "driver.styrmin.yml", ps[i].File)
				require.Equal(t, w.line, ps[i].Line, "line of %v", ps[i])
				require.Equal(t, w.field, ps[i].Field, "field of %v", ps[i])
				require.Contains(t, ps[i].Message, w.msg)
			}
		})
	}
}

// keepPrompts are the retention prompts of a prune action.
const keepPrompts = "[{name: keep_last, type: integer}, {name: keep_days, type: integer}]"

// backupAction is spec.actions with the manual action b (line 13), its
// further fields given.
func backupAction(fields string) string {
	return "actions:\n  - {name: b, hook: manual, function: \"actions:b\", " + fields + "}"
}

// pruneAction is the action p (line 14) with hook and prompts.
func pruneAction(hook, prompts string) string {
	return "\n  - {name: p, hook: " + hook + ", function: \"actions:p\", prompts: " + prompts + "}"
}

func TestProblemString(t *testing.T) {
	t.Parallel()
	p := Problem{File: "a/driver.styrmin.yml", Line: 3, Column: 7, Field: "spec.parameters[1].default", Message: "bad"}
	require.Equal(t, "a/driver.styrmin.yml:3:7: spec.parameters[1].default: bad", p.String())
	p.Field = ""
	require.Equal(t, "a/driver.styrmin.yml:3:7: bad", p.String())
	require.Equal(t, fmt.Sprint(p)+"\n"+fmt.Sprint(p), Problems{p, p}.Error())
}

func TestParseColumnsPointAtValues(t *testing.T) {
	t.Parallel()
	_, err := Parse(t.Context(), "f.yml", []byte(strings.Replace(baseDriver, "name: demo", "name: Demo", 1)))
	var ps Problems
	require.ErrorAs(t, err, &ps)
	require.Equal(t, "f.yml:4:9: metadata.name: \"Demo\" is not a DNS-1123 label: use at most 63 lower-case letters, digits and '-', starting and ending with a letter or digit", ps[0].String())
}

func TestParseAliasBomb(t *testing.T) {
	t.Parallel()
	wide := func(alias string) string {
		return "[" + strings.TrimSuffix(strings.Repeat(alias+", ", 100), ", ") + "]"
	}
	bomb := "v: &v " + wide("a") + "\n" +
		"e: &e {key: k, operator: In, values: *v}\n" +
		"es: &es " + wide("*e") + "\n" +
		"c: &c {name: c, selector: {matchExpressions: *es}}\n" +
		"spec: {components: " + wide("*c") + "}\n"
	_, err := Parse(t.Context(), "bomb.yml", []byte(bomb))
	require.ErrorContains(t, err, "more than 100000 YAML nodes")
}

// mustRead returns the content of a test file.
func mustRead(t *testing.T, path string) string {
	t.Helper()
	data, err := os.ReadFile(path)
	require.NoError(t, err)
	return string(data)
}
