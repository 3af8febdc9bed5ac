package drivers

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"text/template"
	"time"

	"gopkg.in/yaml.v3"
	"helm.sh/helm/v3/pkg/chartutil"
)

// ValuesData is what the values template sees.
type ValuesData struct {
	// Parameters maps each parameter name to its typed value (see Parameter.Check).
	Parameters map[string]any
	// Version is the application version being installed or upgraded to.
	Version string
	// Deployment identifies the deployment being rendered.
	Deployment DeploymentRef
	// Driver identifies the driver version in use.
	Driver DriverRef
}

// DeploymentRef identifies a deployment in the values template.
type DeploymentRef struct {
	Name      string
	Namespace string
	Release   string
}

// DriverRef identifies a driver version in the values template.
type DriverRef struct {
	Name    string
	Version string
}

// TemplateError is a values template failure, located in the template text.
type TemplateError struct {
	// Line and Column in the template, starting at 1; 0 when unknown.
	Line, Column int
	// Message says what went wrong.
	Message string
}

// Error formats the failure with its template line.
func (e *TemplateError) Error() string {
	if e.Line == 0 {
		return "values template: " + e.Message
	}
	return fmt.Sprintf("values template line %d: %s", e.Line, e.Message)
}

// RenderValues renders the driver's values template with data and returns the
// Helm values it produces; an empty output gives empty values. The render runs
// under one budget: 1 MiB for the output and every string or list built on the
// way, 100,000 range iterations in all, and 5 seconds, ending earlier when ctx
// ends. A template that breaks the contract or passes its budget fails with a
// *TemplateError; a cancelled ctx fails with an error wrapping ctx.Err().
func (d *Driver) RenderValues(ctx context.Context, data ValuesData) (map[string]any, error) {
	vals, err := renderValues(ctx, d.Spec.Helm.Main.Values, data, maxValuesTime)
	if err != nil {
		return nil, fmt.Errorf("drivers: render values of %s %s: %w", d.Metadata.Name, d.Spec.Version, err)
	}
	return vals, nil
}

// renderValues parses, executes and reads the values template under one
// budget, whose time is limit.
func renderValues(ctx context.Context, text string, data ValuesData, limit time.Duration) (map[string]any, error) {
	b := newBudget(ctx, limit)
	tmpl, err := template.New("values").Option("missingkey=error").Funcs(valuesFuncs(b)).Parse(text)
	if err != nil {
		return nil, templateError(err)
	}
	if err := guardTemplate(tmpl, b); err != nil {
		return nil, err
	}
	out := &budgetBuffer{b: b}
	err = tmpl.Execute(out, data)
	if cerr := ctx.Err(); cerr != nil {
		return nil, fmt.Errorf("values template: %w", cerr)
	}
	if err != nil {
		return nil, templateError(err)
	}
	return readValues(out.Bytes())
}

// readValues reads rendered values, which must form one YAML mapping.
func readValues(out []byte) (map[string]any, error) {
	var doc yaml.Node
	if err := yaml.Unmarshal(out, &doc); err != nil {
		return nil, &TemplateError{Message: "output is not valid YAML: " + strings.TrimPrefix(err.Error(), "yaml: ")}
	}
	if len(doc.Content) == 0 {
		return map[string]any{}, nil
	}
	if root := doc.Content[0]; root.Kind != yaml.MappingNode {
		return nil, &TemplateError{Message: "output is " + describeNode(root) + ", not a YAML mapping of values"}
	}
	vals, err := chartutil.ReadValues(out)
	if err != nil {
		return nil, &TemplateError{Message: "output is not valid Helm values: " + err.Error()}
	}
	return vals, nil
}

// templateErrorText splits text/template messages into line, column and message.
var templateErrorText = regexp.MustCompile(`^template: values:(\d+)(?::(\d+))?: (?:executing "values" at <[^>]*>: )?(.*)$`)

// templateError turns a text/template error into a TemplateError.
func templateError(err error) error {
	var te *TemplateError
	if errors.As(err, &te) {
		return te
	}
	m := templateErrorText.FindStringSubmatch(err.Error())
	if m == nil {
		return &TemplateError{Message: err.Error()}
	}
	line, _ := strconv.Atoi(m[1]) // the pattern guarantees digits
	col, _ := strconv.Atoi(m[2])  // empty when absent: 0
	msg := strings.TrimPrefix(m[3], "error calling ")
	if strings.HasPrefix(msg, "map has no entry for key") {
		msg += "; declare it in spec.parameters or fix the name"
	}
	return &TemplateError{Line: line, Column: col, Message: msg}
}

// checkValuesTemplate renders the values template with each parameter's default
// or a placeholder, reporting template errors at their line in the file.
func checkValuesTemplate(ctx context.Context, rep *report, d *Driver, data []byte) {
	params := map[string]any{}
	for i := range d.Spec.Parameters {
		p := &d.Spec.Parameters[i]
		v, err := p.Check(p.Default)
		if p.Default == nil || err != nil {
			v = p.placeholder()
		}
		params[p.Name] = v
	}
	sample := ValuesData{
		Parameters: params,
		Version:    "1.0.0",
		Deployment: DeploymentRef{Name: "example", Namespace: "example", Release: "example"},
		Driver:     DriverRef{Name: d.Metadata.Name, Version: d.Spec.Version},
	}
	_, err := renderValues(ctx, d.Spec.Helm.Main.Values, sample, maxValuesTime)
	var te *TemplateError
	if errors.As(err, &te) {
		reportTemplateError(rep, data, te, slices.Collect(maps.Keys(params)))
	}
}

// reportTemplateError reports te at its place in the driver file data:
// its line of a literal block scalar, else the values field; names are the
// parameters a missing key may be a misspelling of.
func reportTemplateError(rep *report, data []byte, te *TemplateError, names []string) {
	const field = "spec.helm.main.values"
	pos, ok := rep.positions[field]
	if !ok {
		return
	}
	msg := te.Message
	if m := missingKey.FindStringSubmatch(msg); m != nil {
		msg += suggest(m[1], names)
	}
	if te.Line > 0 {
		pos = blockScalarPosition(data, pos, te.Line, te.Column)
		rep.at(pos, field, "line %d of the template: %s", te.Line, msg)
		return
	}
	rep.at(pos, field, "%s", msg)
}

// missingKey finds the key in a text/template missing-key error.
var missingKey = regexp.MustCompile(`^map has no entry for key "([^"]*)"`)

// blockScalarPosition maps a template line and column to the file when the
// template is a literal block scalar (`values: |`); otherwise it returns start.
func blockScalarPosition(data []byte, start position, line, col int) position {
	lines := strings.Split(string(data), "\n")
	if start.line < 1 || start.line > len(lines) {
		return start
	}
	head := lines[start.line-1]
	if start.column-1 >= len(head) || head[start.column-1] != '|' {
		return start
	}
	target := start.line + line
	if target > len(lines) {
		return start
	}
	text := lines[target-1]
	indent := len(text) - len(strings.TrimLeft(text, " "))
	return position{line: target, column: indent + max(col, 1)}
}
