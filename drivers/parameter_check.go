package drivers

import (
	"errors"
	"fmt"
	"math"
	"regexp"
	"strconv"
	"strings"
	"unicode/utf8"
)

// validateParameters checks a list of parameters or prompts at path p,
// including that each default satisfies its parameter's type and constraints.
func validateParameters(rep *report, p string, params []Parameter) {
	seen := map[string]int{}
	for i := range params {
		param := &params[i]
		pp := indexPath(p, i)
		if param.Name != "" && !parameterName.MatchString(param.Name) {
			rep.add(pp+".name", "%q is not a parameter name; use lower-case letters, digits and '_', starting with a letter", param.Name)
		}
		checkUnique(rep, seen, pp+".name", param.Name, i, p)
		if param.Type == "" || !checkEnum(rep, pp+".type", string(param.Type), parameterTypes) {
			continue
		}
		before := len(rep.problems)
		validateConstraints(rep, pp, param)
		if len(rep.problems) > before || param.Default == nil {
			continue
		}
		if _, err := param.Check(param.Default); err != nil {
			rep.add(pp+".default", "%v", err)
		}
	}
}

// validateConstraints checks that a parameter's constraints fit its type and each other.
func validateConstraints(rep *report, pp string, p *Parameter) {
	notFor := func(field string, set bool) {
		if set {
			rep.add(pp+"."+field, "is not allowed for type %s", p.Type)
		}
	}
	str := p.Type == TypeString || p.Type == TypeSecret
	notFor("min_length", p.MinLength != nil && !str)
	notFor("max_length", p.MaxLength != nil && !str && p.Type != TypeText)
	notFor("pattern", p.Pattern != "" && !str)
	num := p.Type == TypeInteger || p.Type == TypeNumber
	notFor("min", p.Min != nil && !num)
	notFor("max", p.Max != nil && !num)
	notFor("choices", p.Choices != nil && p.Type != TypeEnum)
	for _, f := range []struct {
		name string
		v    *int
	}{{"min_length", p.MinLength}, {"max_length", p.MaxLength}} {
		if f.v != nil && *f.v < 0 {
			rep.add(pp+"."+f.name, "is %d; a length must be 0 or more", *f.v)
		}
	}
	if p.MinLength != nil && p.MaxLength != nil && *p.MinLength > *p.MaxLength {
		rep.add(pp+".max_length", "is %d, less than min_length %d", *p.MaxLength, *p.MinLength)
	}
	if p.Min != nil && p.Max != nil && *p.Min > *p.Max {
		rep.add(pp+".max", "is %v, less than min %v", *p.Max, *p.Min)
	}
	if p.Type == TypeInteger {
		for _, f := range []struct {
			name string
			v    *float64
		}{{"min", p.Min}, {"max", p.Max}} {
			if f.v != nil && *f.v != math.Trunc(*f.v) {
				rep.add(pp+"."+f.name, "is %v; an integer parameter needs a whole number", *f.v)
			}
		}
	}
	if p.Pattern != "" {
		if _, err := regexp.Compile(p.Pattern); err != nil {
			rep.add(pp+".pattern", "is not a valid regular expression: %v", err)
		}
	}
	if p.Type == TypeEnum {
		validateChoices(rep, pp, p.Choices)
	}
}

// validateChoices checks the choices of an enum parameter.
func validateChoices(rep *report, pp string, choices []any) {
	if len(choices) == 0 {
		rep.add(pp+".choices", "is required for type enum; list at least one allowed value")
		return
	}
	seen := map[string]int{}
	for i, c := range choices {
		if c == nil {
			if !rep.reported(indexPath(pp+".choices", i)) {
				rep.add(indexPath(pp+".choices", i), "must not be null; give a string, number or boolean")
			}
			continue
		}
		key := fmt.Sprintf("%T:%v", c, c)
		if first, dup := seen[key]; dup {
			rep.add(indexPath(pp+".choices", i), "%s repeats choices[%d]; choices must be unique", describeValue(c), first)
			continue
		}
		seen[key] = i
	}
}

// Check validates a value for the parameter against its type and constraints and
// returns it in its canonical Go type: string for string, text, secret; int64
// for integer; float64 for number; bool for boolean; the matching choice for
// enum. It accepts the types YAML and JSON decoding produce.
func (p *Parameter) Check(v any) (any, error) {
	switch p.Type {
	case TypeString, TypeText, TypeSecret:
		s, ok := v.(string)
		if !ok && p.Type == TypeSecret {
			return nil, errors.New("the value must be a string; quote it")
		}
		if !ok {
			return nil, fmt.Errorf("%s must be a string; quote it", describeValue(v))
		}
		return s, p.checkString(s)
	case TypeInteger:
		f, ok := toFloat(v)
		if !ok || f != math.Trunc(f) || math.Abs(f) > 1<<53 {
			return nil, fmt.Errorf("%s must be a whole number", describeValue(v))
		}
		return int64(f), p.checkRange(f)
	case TypeNumber:
		f, ok := toFloat(v)
		if !ok {
			return nil, fmt.Errorf("%s must be a number", describeValue(v))
		}
		return f, p.checkRange(f)
	case TypeBoolean:
		b, ok := v.(bool)
		if !ok {
			return nil, fmt.Errorf("%s must be true or false", describeValue(v))
		}
		return b, nil
	case TypeEnum:
		for _, c := range p.Choices {
			if sameScalar(c, v) {
				return c, nil
			}
		}
		return nil, fmt.Errorf("%s is not one of the choices: %s", describeValue(v), describeChoices(p.Choices))
	}
	return nil, fmt.Errorf("parameter type %q is unknown; use one of: %s", p.Type, strings.Join(parameterTypes, ", "))
}

// ParseInput converts the text of a form field to a value of the parameter's type and checks it.
func (p *Parameter) ParseInput(s string) (any, error) {
	switch p.Type {
	case TypeInteger:
		i, err := strconv.ParseInt(strings.TrimSpace(s), 10, 64)
		if err != nil {
			return nil, fmt.Errorf("%q is not a whole number", s)
		}
		return p.Check(i)
	case TypeNumber:
		f, err := strconv.ParseFloat(strings.TrimSpace(s), 64)
		if err != nil || math.IsNaN(f) || math.IsInf(f, 0) {
			return nil, fmt.Errorf("%q is not a number", s)
		}
		return p.Check(f)
	case TypeBoolean:
		b, err := strconv.ParseBool(s)
		if err != nil {
			return nil, fmt.Errorf("%q is not true or false", s)
		}
		return b, nil
	case TypeEnum:
		for _, c := range p.Choices {
			if fmt.Sprint(c) == s {
				return c, nil
			}
		}
		return nil, fmt.Errorf("%q is not one of the choices: %s", s, describeChoices(p.Choices))
	}
	return p.Check(s)
}

// checkString checks a string value against the length and pattern constraints.
func (p *Parameter) checkString(s string) error {
	if p.Type == TypeString && strings.ContainsAny(s, "\r\n") {
		return errors.New("must be one line; use type text for multi-line values")
	}
	n := utf8.RuneCountInString(s)
	if p.MinLength != nil && n < *p.MinLength {
		return fmt.Errorf("is %d characters long; at least %d are required", n, *p.MinLength)
	}
	if p.MaxLength != nil && n > *p.MaxLength {
		return fmt.Errorf("is %d characters long; at most %d are allowed", n, *p.MaxLength)
	}
	if p.Pattern != "" {
		re, err := regexp.Compile(anchored(p.Pattern))
		if err != nil {
			return fmt.Errorf("pattern %q is not a valid regular expression: %w", p.Pattern, err)
		}
		if !re.MatchString(s) {
			if p.Type == TypeSecret {
				return errors.New("does not match the pattern " + p.Pattern)
			}
			return fmt.Errorf("%q does not match the pattern %s", s, p.Pattern)
		}
	}
	return nil
}

// checkRange checks a number against min and max.
func (p *Parameter) checkRange(f float64) error {
	if p.Min != nil && f < *p.Min {
		return fmt.Errorf("%v is less than the minimum %v", f, *p.Min)
	}
	if p.Max != nil && f > *p.Max {
		return fmt.Errorf("%v is more than the maximum %v", f, *p.Max)
	}
	return nil
}

// placeholder returns a value of the parameter's type within its range,
// length and choices (not its pattern), for rendering the values template
// when the parameter has no default.
func (p *Parameter) placeholder() any {
	switch p.Type {
	case TypeInteger, TypeNumber:
		n := 1.0
		if p.Min != nil {
			n = *p.Min
		}
		if p.Max != nil && *p.Max < n {
			n = *p.Max
		}
		if p.Type == TypeInteger {
			return int64(math.Ceil(n))
		}
		return n
	case TypeBoolean:
		return false
	case TypeEnum:
		if len(p.Choices) > 0 {
			return p.Choices[0]
		}
	}
	s := "placeholder"
	if p.MinLength != nil && *p.MinLength > len(s) {
		s += strings.Repeat("x", *p.MinLength-len(s))
	}
	if p.MaxLength != nil && *p.MaxLength < len(s) {
		s = s[:max(*p.MaxLength, 0)]
	}
	return s
}

// anchored makes a pattern match the whole value.
func anchored(pattern string) string {
	return `^(?:` + pattern + `)$`
}

// toFloat converts the numeric types YAML and JSON decoding produce.
func toFloat(v any) (float64, bool) {
	switch n := v.(type) {
	case int:
		return float64(n), true
	case int64:
		return float64(n), true
	case uint64:
		return float64(n), true
	case float64:
		return n, !math.IsNaN(n) && !math.IsInf(n, 0)
	}
	return 0, false
}

// sameScalar compares scalars, numbers by value whatever their Go type.
func sameScalar(a, b any) bool {
	fa, okA := toFloat(a)
	fb, okB := toFloat(b)
	if okA && okB {
		return fa == fb
	}
	return a == b
}

// describeChoices lists choices for messages.
func describeChoices(choices []any) string {
	out := make([]string, len(choices))
	for i, c := range choices {
		out[i] = describeValue(c)
	}
	return strings.Join(out, ", ")
}
