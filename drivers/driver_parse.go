package drivers

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"reflect"
	"regexp"
	"slices"
	"strconv"
	"strings"

	"gopkg.in/yaml.v3"
)

// maxSpecSize is the largest driver.styrmin.yml accepted, in bytes.
const maxSpecSize = 1 << 20

// maxNodes bounds the YAML nodes decoded from one file, aliases included, so
// that alias bombs cannot exhaust memory.
const maxNodes = 100_000

// Parse decodes and validates a driver.styrmin.yml file, rendering its values
// template under its budget (see RenderValues) with a sample of the
// parameters. path only names the file in problems. When the file breaks the
// contract the error is Problems listing every violation, and the returned
// Driver holds what could be decoded; when ctx ends first, the error wraps ctx.Err().
func Parse(ctx context.Context, path string, data []byte) (*Driver, error) {
	d, rep := parse(ctx, path, data)
	if err := ctx.Err(); err != nil {
		return d, fmt.Errorf("drivers: parse %s: %w", path, err)
	}
	if ps := rep.result(); ps != nil {
		return d, ps
	}
	return d, nil
}

// Decode decodes a driver file that was validated before, such as one stored
// in the catalogue, without checking the contract again: it neither validates
// nor renders the values template. The error is Problems when data does not decode.
func Decode(path string, data []byte) (*Driver, error) {
	rep := newReport(path)
	d := &Driver{}
	decodeFile(rep, data, d)
	if ps := rep.result(); ps != nil {
		return nil, ps
	}
	return d, nil
}

// parse decodes and validates a driver file, returning the report that holds
// its problems and the positions of its fields.
func parse(ctx context.Context, path string, data []byte) (*Driver, *report) {
	rep := newReport(path)
	d := &Driver{}
	if decodeFile(rep, data, d) {
		validate(rep, d)
		checkValuesTemplate(ctx, rep, d, data)
	}
	return d, rep
}

// decodeFile decodes data into d, recording positions and problems in rep. It
// reports false when the YAML itself could not be read.
func decodeFile(rep *report, data []byte, d *Driver) bool {
	if len(data) > maxSpecSize {
		rep.at(position{1, 1}, "", "file is %d bytes; at most %d are allowed", len(data), maxSpecSize)
		return false
	}
	root, ok := readDocument(rep, data)
	if !ok {
		return false
	}
	dec := &decoder{rep: rep}
	dec.decode(root, reflect.ValueOf(d).Elem(), "")
	return true
}

// yamlLine finds the line number in a yaml.v3 error message.
var yamlLine = regexp.MustCompile(`^yaml: line (\d+): (.*)$`)

// readDocument parses data as exactly one YAML document.
func readDocument(rep *report, data []byte) (*yaml.Node, bool) {
	dec := yaml.NewDecoder(bytes.NewReader(data))
	var doc yaml.Node
	if err := dec.Decode(&doc); err != nil {
		if errors.Is(err, io.EOF) {
			rep.at(position{1, 1}, "", "file is empty; a driver file starts with apiVersion: %s", APIVersion)
			return nil, false
		}
		rep.at(yamlErrorPosition(err), "", "invalid YAML: %s", yamlErrorMessage(err))
		return nil, false
	}
	var extra yaml.Node
	if err := dec.Decode(&extra); err == nil {
		rep.at(position{extra.Line, extra.Column}, "", "file holds more than one YAML document; a driver file is one document")
		return nil, false
	} else if !errors.Is(err, io.EOF) {
		rep.at(yamlErrorPosition(err), "", "invalid YAML: %s", yamlErrorMessage(err))
		return nil, false
	}
	if len(doc.Content) == 0 || isEmptyScalar(doc.Content[0]) {
		rep.at(position{1, 1}, "", "file is empty; a driver file starts with apiVersion: %s", APIVersion)
		return nil, false
	}
	return doc.Content[0], true
}

// yamlErrorPosition extracts the line of a yaml.v3 error.
func yamlErrorPosition(err error) position {
	if m := yamlLine.FindStringSubmatch(err.Error()); m != nil {
		n, _ := strconv.Atoi(m[1]) // the pattern guarantees digits
		return position{n, 1}
	}
	return position{1, 1}
}

// yamlErrorMessage strips the "yaml: line N:" prefix of a yaml.v3 error.
func yamlErrorMessage(err error) string {
	if m := yamlLine.FindStringSubmatch(err.Error()); m != nil {
		return m[2]
	}
	return strings.TrimPrefix(err.Error(), "yaml: ")
}

// decoder fills Go values from YAML nodes by their yaml tags, reporting every
// mismatch instead of stopping at the first.
type decoder struct {
	rep   *report
	nodes int
}

// decode fills v from n; path is v's field path.
func (d *decoder) decode(n *yaml.Node, v reflect.Value, path string) {
	n, ok := d.resolve(n, path)
	if !ok {
		return
	}
	d.rep.positions[path] = position{n.Line, n.Column}
	if n.Kind == yaml.ScalarNode && n.Tag == "!!null" {
		return
	}
	switch v.Kind() {
	case reflect.Struct:
		d.decodeStruct(n, v, path)
	case reflect.Slice:
		d.decodeSlice(n, v, path)
	case reflect.Map:
		d.decodeMap(n, v, path)
	case reflect.Pointer:
		elem := reflect.New(v.Type().Elem())
		if d.decodeScalar(n, elem.Elem(), path) {
			v.Set(elem)
		}
	default:
		d.decodeScalar(n, v, path)
	}
}

// resolve follows aliases and enforces the node budget.
func (d *decoder) resolve(n *yaml.Node, path string) (*yaml.Node, bool) {
	for n.Kind == yaml.AliasNode {
		n = n.Alias
	}
	d.nodes++
	if d.nodes == maxNodes {
		d.rep.at(position{n.Line, n.Column}, path, "file expands to more than %d YAML nodes; remove aliases", maxNodes)
	}
	return n, d.nodes < maxNodes
}

// decodeStruct fills a struct from a mapping, reporting unknown, duplicate and missing fields.
func (d *decoder) decodeStruct(n *yaml.Node, v reflect.Value, path string) {
	if n.Kind != yaml.MappingNode {
		d.rep.add(path, "must be a mapping of fields, not %s", describeNode(n))
		return
	}
	fields := structFields(v.Type())
	seen := map[string]bool{}
	for i := 0; i+1 < len(n.Content); i += 2 {
		key, val := n.Content[i], n.Content[i+1]
		keyPos := position{key.Line, key.Column}
		name := key.Value
		if key.Kind != yaml.ScalarNode {
			d.rep.at(keyPos, path, "field names must be plain strings")
			continue
		}
		child := childPath(path, name)
		f, ok := fields[name]
		if !ok {
			d.rep.at(keyPos, child, "unknown field %q%s", name, suggest(name, fieldNames(fields)))
			continue
		}
		if seen[name] {
			d.rep.at(keyPos, child, "field %q is given twice", name)
			continue
		}
		seen[name] = true
		if f.required && isEmptyScalar(val) {
			d.rep.at(position{val.Line, val.Column}, child, "must not be empty")
			continue
		}
		d.decode(val, v.Field(f.index), child)
	}
	for _, name := range fieldNames(fields) {
		if fields[name].required && !seen[name] {
			d.rep.add(childPath(path, name), "missing required field %q", name)
		}
	}
}

// decodeSlice fills a slice from a sequence.
func (d *decoder) decodeSlice(n *yaml.Node, v reflect.Value, path string) {
	if n.Kind != yaml.SequenceNode {
		d.rep.add(path, "must be a list, not %s", describeNode(n))
		return
	}
	s := reflect.MakeSlice(v.Type(), len(n.Content), len(n.Content))
	for i, item := range n.Content {
		d.decode(item, s.Index(i), indexPath(path, i))
	}
	v.Set(s)
}

// decodeMap fills a map of strings from a mapping of scalars.
func (d *decoder) decodeMap(n *yaml.Node, v reflect.Value, path string) {
	if n.Kind != yaml.MappingNode {
		d.rep.add(path, "must be a mapping, not %s", describeNode(n))
		return
	}
	m := reflect.MakeMap(v.Type())
	for i := 0; i+1 < len(n.Content); i += 2 {
		key, val := n.Content[i], n.Content[i+1]
		if key.Kind != yaml.ScalarNode {
			d.rep.at(position{key.Line, key.Column}, path, "keys must be plain strings")
			continue
		}
		child := childPath(path, key.Value)
		if m.MapIndex(reflect.ValueOf(key.Value)).IsValid() {
			d.rep.at(position{key.Line, key.Column}, child, "key %q is given twice", key.Value)
			continue
		}
		elem := reflect.New(v.Type().Elem()).Elem()
		d.decode(val, elem, child)
		m.SetMapIndex(reflect.ValueOf(key.Value), elem)
	}
	v.Set(m)
}

// decodeScalar fills a string, bool, number or any value from a scalar; it
// reports whether it succeeded.
func (d *decoder) decodeScalar(n *yaml.Node, v reflect.Value, path string) bool {
	if n.Kind != yaml.ScalarNode {
		d.rep.add(path, "must be %s, not %s", describeKind(v), describeNode(n))
		return false
	}
	switch v.Kind() {
	case reflect.String:
		v.SetString(n.Value)
		return true
	case reflect.Interface:
		var x any
		if err := n.Decode(&x); err != nil {
			d.rep.add(path, "cannot read value: %v", err)
			return false
		}
		v.Set(reflect.ValueOf(x))
		return true
	case reflect.Bool:
		var b bool
		if n.Tag != "!!bool" || n.Decode(&b) != nil {
			d.rep.add(path, "must be true or false, not %s", describeNode(n))
			return false
		}
		v.SetBool(b)
		return true
	case reflect.Int:
		var i int
		if n.Tag != "!!int" || n.Decode(&i) != nil {
			d.rep.add(path, "must be a whole number, not %s", describeNode(n))
			return false
		}
		v.SetInt(int64(i))
		return true
	case reflect.Float64:
		var f float64
		if (n.Tag != "!!int" && n.Tag != "!!float") || n.Decode(&f) != nil {
			d.rep.add(path, "must be a number, not %s", describeNode(n))
			return false
		}
		v.SetFloat(f)
		return true
	}
	panic(fmt.Sprintf("drivers: no decoder for %s", v.Type())) // only reachable by changing the types
}

// describeKind names the YAML shape a Go value expects.
func describeKind(v reflect.Value) string {
	switch v.Kind() {
	case reflect.Bool:
		return "true or false"
	case reflect.Int:
		return "a whole number"
	case reflect.Float64:
		return "a number"
	case reflect.Interface:
		return "a single value (string, number or boolean)"
	}
	return "a string"
}

// describeNode names what a YAML node holds, for messages.
func describeNode(n *yaml.Node) string {
	switch n.Kind {
	case yaml.MappingNode:
		return "a mapping"
	case yaml.SequenceNode:
		return "a list"
	}
	switch n.Tag {
	case "!!null":
		return "null"
	case "!!bool":
		return "the boolean " + n.Value
	case "!!int", "!!float":
		return "the number " + n.Value
	}
	return strconv.Quote(n.Value)
}

// isEmptyScalar reports whether n is null or an empty string.
func isEmptyScalar(n *yaml.Node) bool {
	for n.Kind == yaml.AliasNode {
		n = n.Alias
	}
	return n.Kind == yaml.ScalarNode && (n.Tag == "!!null" || n.Value == "")
}

// structField is what the decoder needs to know about one struct field.
type structField struct {
	index    int
	required bool
}

// structFields maps the yaml names of t's fields to their index and whether they are required.
func structFields(t reflect.Type) map[string]structField {
	fields := map[string]structField{}
	for i := range t.NumField() {
		f := t.Field(i)
		name, _, _ := strings.Cut(f.Tag.Get("yaml"), ",")
		fields[name] = structField{index: i, required: hasTagOption(f.Tag.Get("jsonschema"), "required")}
	}
	return fields
}

// fieldNames lists the yaml names of fields in sorted order.
func fieldNames(fields map[string]structField) []string {
	names := make([]string, 0, len(fields))
	for name := range fields {
		names = append(names, name)
	}
	slices.Sort(names)
	return names
}

// hasTagOption reports whether a comma-separated struct tag holds option.
func hasTagOption(tag, option string) bool {
	return slices.Contains(strings.Split(tag, ","), option)
}
