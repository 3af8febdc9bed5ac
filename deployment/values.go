package deployment

import (
	"encoding/json"
	"fmt"
	"maps"
	"reflect"
	"slices"
	"strconv"
	"strings"

	"github.com/styrmin/styrmin/drivers"
	"github.com/styrmin/styrmin/release"
	"github.com/styrmin/styrmin/secrets"
)

// Values are a deployment's parameter values: the plain ones in the types
// drivers.Parameter.Check gives, the secret ones apart (stored sealed, never
// shown).
type Values struct {
	Plain   map[string]any
	Secrets map[string]string
}

// All returns every value, for rendering the values template.
func (v Values) All() map[string]any {
	all := make(map[string]any, len(v.Plain)+len(v.Secrets))
	maps.Copy(all, v.Plain)
	for name, s := range v.Secrets {
		all[name] = s
	}
	return all
}

// ReadForm reads the parameters' form fields (parameter name → text; an
// unchecked boolean is absent) into values. For an upgrade, current holds the
// deployment's values: a blank secret keeps its current value and an
// immutable parameter may not change. A blank field takes the parameter's
// default. Each bad field gets its message in fields (parameter name →
// message); a parameter nobody set and that has no default is left out.
func ReadForm(params []drivers.Parameter, form map[string]string, current *Values) (v Values, fields map[string]string) {
	return readValues(params, current, func(p *drivers.Parameter) (any, bool, error) {
		text, given := form[p.Name]
		return readText(p, text, given, current)
	})
}

// readValues reads a value for each parameter with read, then refuses a new
// value of an immutable one (current: an upgrade's values), as ReadForm
// says; each bad value gets its message in fields (name → message).
func readValues(params []drivers.Parameter, current *Values, read func(p *drivers.Parameter) (value any, set bool, err error)) (v Values, fields map[string]string) {
	v = Values{Plain: map[string]any{}, Secrets: map[string]string{}}
	fields = map[string]string{}
	for i := range params {
		p := &params[i]
		value, set, err := read(p)
		if err == nil && set && current != nil && p.Immutable {
			err = checkUnchanged(p, value, current)
		}
		switch {
		case err != nil:
			fields[p.Name] = err.Error()
		case !set:
		case p.Type == drivers.TypeSecret:
			v.Secrets[p.Name] = value.(string)
		default:
			v.Plain[p.Name] = value
		}
	}
	return v, fields
}

// readText reads the text of one parameter's field (given: the field was
// sent; an unchecked box is not); set is false when it has no value.
func readText(p *drivers.Parameter, text string, given bool, current *Values) (value any, set bool, err error) {
	if p.Type == drivers.TypeBoolean {
		return given && text != "" && text != "false", true, nil
	}
	if p.Type != drivers.TypeText && p.Type != drivers.TypeSecret {
		text = strings.TrimSpace(text)
	}
	if text != "" {
		value, err := p.ParseInput(text)
		return value, err == nil, err
	}
	if p.Type == drivers.TypeSecret && current != nil {
		if s, ok := current.Secrets[p.Name]; ok {
			return s, true, nil
		}
	}
	if p.Default != nil {
		value, err := p.Check(p.Default)
		return value, err == nil, err
	}
	if p.Required {
		return nil, false, fmt.Errorf("%s is required", titleOf(p))
	}
	return nil, false, nil
}

// checkUnchanged refuses a new value for an immutable parameter.
func checkUnchanged(p *drivers.Parameter, value any, current *Values) error {
	if p.Type == drivers.TypeSecret {
		if old, ok := current.Secrets[p.Name]; ok && old != value {
			return fmt.Errorf("%s cannot change after install", titleOf(p))
		}
		return nil
	}
	if old, ok := current.Plain[p.Name]; ok && !sameValue(old, value) {
		return fmt.Errorf("%s cannot change after install; it stays %v", titleOf(p), old)
	}
	return nil
}

// sameValue compares values that went through Check, tolerating the number
// types JSON decoding gives back for stored values.
func sameValue(a, b any) bool {
	if fa, ok := number(a); ok {
		fb, ok := number(b)
		return ok && fa == fb
	}
	return reflect.DeepEqual(a, b)
}

// number converts Go's numeric kinds to float64.
func number(v any) (float64, bool) {
	rv := reflect.ValueOf(v)
	switch rv.Kind() {
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
		return float64(rv.Int()), true
	case reflect.Float32, reflect.Float64:
		return rv.Float(), true
	}
	return 0, false
}

// titleOf is a parameter's label on the form.
func titleOf(p *drivers.Parameter) string {
	if p.Title != "" {
		return p.Title
	}
	return p.Name
}

// FormText returns the text each parameter's field starts with: the current
// value for an upgrade, else the default; secret fields always start blank.
func FormText(params []drivers.Parameter, current *Values) map[string]string {
	text := map[string]string{}
	for i := range params {
		p := &params[i]
		if p.Type == drivers.TypeSecret {
			continue
		}
		v, ok := any(nil), false
		if current != nil {
			v, ok = current.Plain[p.Name]
		}
		if !ok && p.Default != nil {
			v, ok = p.Default, true
		}
		switch {
		case !ok:
		case p.Type == drivers.TypeBoolean:
			if b, _ := v.(bool); b {
				text[p.Name] = "true"
			}
		default:
			text[p.Name] = formatValue(v)
		}
	}
	return text
}

// Change is how one parameter differs between two sets of values.
type Change struct {
	Name, Title string
	// Kind is how it differs, in the words of the release's resource
	// changes (the review shows both).
	Kind release.Change
	// Old and New are the values as text; empty for secrets, which are
	// never shown.
	Old, New string
	Secret   bool
}

// Compare lists how each parameter of params (and each value that params no
// longer declares) differs from old to new, in declaration order.
func Compare(params []drivers.Parameter, old, new Values) []Change {
	var changes []Change
	declared := map[string]bool{}
	for i := range params {
		p := &params[i]
		declared[p.Name] = true
		c := Change{Name: p.Name, Title: titleOf(p), Secret: p.Type == drivers.TypeSecret}
		var oldV, newV any
		var hadOld, hasNew bool
		if c.Secret {
			oldV, hadOld = old.Secrets[p.Name]
			newV, hasNew = new.Secrets[p.Name]
		} else {
			oldV, hadOld = old.Plain[p.Name]
			newV, hasNew = new.Plain[p.Name]
			c.Old, c.New = show(oldV, hadOld), show(newV, hasNew)
		}
		switch {
		case !hadOld && hasNew:
			c.Kind = release.Added
		case hadOld && !hasNew:
			c.Kind = release.Removed
		case hadOld && !sameValue(oldV, newV):
			c.Kind = release.Changed
		default:
			c.Kind = release.Unchanged
		}
		changes = append(changes, c)
	}
	var gone []string
	for name := range old.Plain {
		if !declared[name] {
			gone = append(gone, name)
		}
	}
	for name := range old.Secrets {
		if !declared[name] {
			gone = append(gone, name)
		}
	}
	slices.Sort(gone)
	for _, name := range gone {
		_, secret := old.Secrets[name]
		c := Change{Name: name, Title: name, Kind: release.Removed, Secret: secret}
		if !secret {
			c.Old = show(old.Plain[name], true)
		}
		changes = append(changes, c)
	}
	return changes
}

// show writes a value as the review page shows it.
func show(v any, ok bool) string {
	if !ok {
		return ""
	}
	return formatValue(v)
}

// formatValue writes a value as a form field holds it: numbers in plain
// decimal notation (never 1e+06).
func formatValue(v any) string {
	if f, ok := v.(float64); ok {
		return strconv.FormatFloat(f, 'f', -1, 64)
	}
	return fmt.Sprint(v)
}

// MarshalPlain encodes the plain values for storage.
func MarshalPlain(v Values) ([]byte, error) {
	out, err := json.Marshal(v.Plain)
	if err != nil {
		return nil, fmt.Errorf("deployment: encode parameters: %w", err)
	}
	return out, nil
}

// StoredValues reads values back from storage (plain JSON and sealed
// secrets), giving each declared parameter's value its canonical type again.
func (s *Service) StoredValues(params []drivers.Parameter, plainJSON, sealed []byte, at secrets.Place) (Values, error) {
	var plain map[string]any
	if err := json.Unmarshal(plainJSON, &plain); err != nil {
		return Values{}, fmt.Errorf("deployment: decode stored parameters: %w", err)
	}
	return s.openValues(params, plain, sealed, at)
}

// openValues opens sealed secrets and gives each declared parameter's plain
// value its canonical type again (JSON gives every number as float64).
func (s *Service) openValues(params []drivers.Parameter, plain map[string]any, sealed []byte, at secrets.Place) (Values, error) {
	secretValues, err := s.box.OpenValues(sealed, at)
	if err != nil {
		return Values{}, fmt.Errorf("deployment: open stored secrets: %w", err)
	}
	return TypedValues(params, plain, secretValues), nil
}

// TypedValues are plain values and opened secrets, each declared
// parameter's plain value given its canonical type again.
func TypedValues(params []drivers.Parameter, plain map[string]any, secretValues map[string]string) Values {
	v := Values{Plain: map[string]any{}, Secrets: secretValues}
	for name, value := range plain {
		v.Plain[name] = value
	}
	for i := range params {
		p := &params[i]
		if old, ok := v.Plain[p.Name]; ok {
			if typed, err := p.Check(old); err == nil {
				v.Plain[p.Name] = typed
			}
		}
	}
	return v
}
