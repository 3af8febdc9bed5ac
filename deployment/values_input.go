package deployment

import (
	"encoding/json"
	"fmt"
	"math"
	"slices"
	"strconv"

	"github.com/styrmin/styrmin/drivers"
)

// Input is what was entered for a set of parameters (a driver version's
// parameters, or one action's prompts), before it is read against them:
// form text (FormInput) or JSON values (JSONInput). An operation reads it
// when it plans, against the parameters and current values it finds then;
// a nil Input reads as a JSONInput that leaves every value out.
type Input interface {
	// read reads the input into values; bad ones get their message in
	// fields (name → message); shape says they are of a shape no
	// parameter takes (ReadJSON).
	read(params []drivers.Parameter, current *Values) (v Values, fields map[string]string, shape bool)
}

// FormInput is the text of a form's fields by parameter name, read by
// ReadForm (an unchecked box is absent).
type FormInput map[string]string

// read reads the form's fields with ReadForm.
func (in FormInput) read(params []drivers.Parameter, current *Values) (Values, map[string]string, bool) {
	v, fields := ReadForm(params, in, current)
	return v, fields, false
}

// JSONInput is values given as JSON by parameter name, read by ReadJSON.
type JSONInput map[string]any

// read reads the values with ReadJSON.
func (in JSONInput) read(params []drivers.Parameter, current *Values) (Values, map[string]string, bool) {
	return readJSON(params, in, current)
}

// readInput reads in (nil: every value left out) against params.
func readInput(in Input, params []drivers.Parameter, current *Values) (Values, map[string]string, bool) {
	if in == nil {
		in = JSONInput(nil)
	}
	return in.read(params, current)
}

// ReadJSON reads parameter values given as JSON (as the REST API and the
// action primitives take them: strings, numbers of any Go numeric kind,
// booleans, null) into
// values, checking each against its parameter's type. current is as for
// ReadForm, and a value reads as the same value typed in a form would:
//
//   - a value left out, or null, is the value the form starts with: the
//     current one (an upgrade; a secret keeps its value), else the default;
//   - a boolean parameter takes true or false only;
//   - an integer takes a whole number, a number any number, and either
//     takes a string as a form's text; every other parameter takes a
//     string as is, and a number (in plain decimal notation: never 1e+06)
//     or a boolean as the text it is written as;
//   - no parameter type holds a list or an object.
//
// Each bad value gets its message in fields (name → message). Values of a
// shape no parameter takes (a list, an object, a name params does not
// declare, anything but true or false for a boolean) are refused before
// any value is checked: fields then holds only them.
func ReadJSON(params []drivers.Parameter, values map[string]any, current *Values) (v Values, fields map[string]string) {
	v, fields, _ = readJSON(params, values, current)
	return v, fields
}

// readJSON is ReadJSON, saying whether its errors are of shape.
func readJSON(params []drivers.Parameter, values map[string]any, current *Values) (Values, map[string]string, bool) {
	if bad := shapeErrors(params, values); len(bad) > 0 {
		return Values{Plain: map[string]any{}, Secrets: map[string]string{}}, bad, true
	}
	v, fields := readValues(params, current, func(p *drivers.Parameter) (any, bool, error) {
		return readScalar(p, values[p.Name], current)
	})
	return v, fields, false
}

// shapeErrors are the values no parameter of params can take (name →
// message): unknown names, lists and objects, and anything but true, false
// or null for a boolean.
func shapeErrors(params []drivers.Parameter, values map[string]any) map[string]string {
	fields := map[string]string{}
	for name, v := range values {
		i := slices.IndexFunc(params, func(p drivers.Parameter) bool { return p.Name == name })
		if i < 0 {
			fields[name] = fmt.Sprintf("there is no parameter named %s", name)
			continue
		}
		p := &params[i]
		if v == nil {
			continue
		}
		if _, isBool := v.(bool); p.Type == drivers.TypeBoolean && !isBool {
			fields[name] = fmt.Sprintf("%s must be true or false", titleOf(p))
			continue
		}
		if _, isNumber := number(v); isNumber {
			continue
		}
		switch v.(type) {
		case string, bool, json.Number:
		case []any:
			fields[name] = fmt.Sprintf("%s takes one value, not a list", titleOf(p))
		case map[string]any:
			fields[name] = fmt.Sprintf("%s takes one value, not an object", titleOf(p))
		default:
			fields[name] = fmt.Sprintf("%s cannot take %v", titleOf(p), v)
		}
	}
	return fields
}

// readScalar reads one JSON value (or a current or default value) for p,
// as ReadJSON says; set is false when it has no value.
func readScalar(p *drivers.Parameter, v any, current *Values) (value any, set bool, err error) {
	switch v := v.(type) {
	case nil:
		return startValue(p, current)
	case string:
		return readText(p, v, true, current)
	case bool:
		if p.Type == drivers.TypeBoolean {
			return v, true, nil
		}
		return readText(p, strconv.FormatBool(v), true, current)
	case json.Number:
		return readText(p, v.String(), true, current)
	}
	if f, ok := number(v); ok {
		return readNumber(p, f, current)
	}
	return readText(p, fmt.Sprint(v), true, current)
}

// readNumber reads a number for p: an integer must be whole, an enum
// matches the choice written as the number is, and a string takes the
// number's plain decimal text.
func readNumber(p *drivers.Parameter, f float64, current *Values) (any, bool, error) {
	var value any
	var err error
	switch p.Type {
	case drivers.TypeInteger:
		if f != math.Trunc(f) || f < math.MinInt64 || f >= math.MaxInt64 {
			return nil, false, fmt.Errorf("%q is not a whole number", formatValue(f))
		}
		value, err = p.Check(int64(f))
	case drivers.TypeNumber:
		value, err = p.Check(f)
	default:
		return readText(p, formatValue(f), true, current)
	}
	return value, err == nil, err
}

// startValue is the value of a parameter left out: the one its form field
// starts with (FormText's: the current value, else the default; a secret
// field starts blank and so keeps its current value).
func startValue(p *drivers.Parameter, current *Values) (any, bool, error) {
	var v any
	ok := false
	if current != nil && p.Type != drivers.TypeSecret {
		v, ok = current.Plain[p.Name]
	}
	if !ok && p.Default != nil && p.Type != drivers.TypeSecret {
		v, ok = p.Default, true
	}
	switch {
	case !ok || v == nil:
		return readText(p, "", false, current)
	case p.Type == drivers.TypeBoolean:
		b, _ := v.(bool)
		return b, true, nil
	}
	return readScalar(p, v, current)
}

// PromptsInput is what was entered for the prompts of the hook actions a
// change runs, by action: form text (FormPrompts) or JSON values
// (JSONPrompts). A nil PromptsInput leaves every prompt out.
type PromptsInput interface {
	// input is what was entered for action's prompts.
	input(action string) Input
	// strays are the actions something was entered for that are not
	// among actions, sorted.
	strays(actions []*drivers.Action) []string
}

// FormPrompts is the text of the prompt fields of hook actions, by action
// then prompt.
type FormPrompts map[string]map[string]string

// input is the form fields of action's prompts.
func (in FormPrompts) input(action string) Input { return FormInput(in[action]) }

// strays is none: a form has sections only for the actions the change runs,
// and fields of others are never read.
func (in FormPrompts) strays([]*drivers.Action) []string { return nil }

// JSONPrompts is prompt values given as JSON, by action then prompt.
type JSONPrompts map[string]map[string]any

// input is the JSON values of action's prompts.
func (in JSONPrompts) input(action string) Input { return JSONInput(in[action]) }

// strays are the actions given values that are not among actions.
func (in JSONPrompts) strays(actions []*drivers.Action) []string {
	var out []string
	for name := range in {
		if !slices.ContainsFunc(actions, func(a *drivers.Action) bool { return a.Name == name }) {
			out = append(out, name)
		}
	}
	slices.Sort(out)
	return out
}

// readHookPrompts reads what was entered for the prompts of the hook
// actions a change runs (actions: those that ask prompts), as parameters
// are read; bad values, and values for actions the change does not run,
// are recorded in errs (keyed by PromptField).
func readHookPrompts(actions []*drivers.Action, in PromptsInput, errs *fieldErrors) hookPrompts {
	if in == nil {
		in = JSONPrompts(nil)
	}
	for _, name := range in.strays(actions) {
		errs.addShape(PromptField(name, ""), "this change runs no action "+name+" that asks prompts")
	}
	var p hookPrompts
	for _, a := range actions {
		v, bad, shape := readInput(in.input(a.Name), a.Prompts, nil)
		errs.addRead(bad, shape, func(name string) Field { return PromptField(a.Name, name) })
		p.add(a.Name, v)
	}
	return p
}
