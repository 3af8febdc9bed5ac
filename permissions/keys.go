package permissions

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"maps"
	"reflect"
	"regexp"
	"slices"
	"strings"
	"unicode"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	kjson "sigs.k8s.io/json"

	"github.com/styrmin/styrmin"
)

// Kubernetes reads a manifest's keys case-sensitively and keeps one of two
// equal keys; other readers of the same text do not (Go's encoding/json
// matches keys regardless of case, and so does Helm's sorting of hooks). So
// that what Styrmin checks is what Kubernetes applies, whatever reads it, a
// document is refused when one of its objects has a key twice, two keys
// equal under case folding, or, at the top level or in metadata, a key that
// differs only in case from a field Kubernetes reads there.

// topFields are the fields Kubernetes reads at the top level of an object:
// those of every object and of the kinds Styrmin reads.
var topFields = []string{"apiVersion", "kind", "metadata", "items", "spec", "status", "data", "stringData",
	"binaryData", "type", "immutable", "rules", "aggregationRule", "subjects", "roleRef", "template", "webhooks"}

// metaFields are the fields of an object's metadata.
var metaFields = jsonFields(reflect.TypeFor[metav1.ObjectMeta]())

// jsonFields are the JSON names of a struct's fields.
func jsonFields(t reflect.Type) []string {
	var out []string
	for f := range t.Fields() {
		if name, _, _ := strings.Cut(f.Tag.Get("json"), ","); name != "" && name != "-" {
			out = append(out, name)
		}
	}
	return out
}

// keyFrame is an object or array being read by checkKeys.
type keyFrame struct {
	object bool
	// path is where the frame is in its document ("" for the top level).
	path string
	// keys are the object's keys so far, by folded key.
	keys map[string]string
	// key is the key whose value comes next; wantKey is true before a key.
	key     string
	wantKey bool
	index   int
}

// child is the path of the frame's next value.
func (f *keyFrame) child() string {
	if !f.object {
		return fmt.Sprintf("%s[%d]", f.path, f.index)
	}
	if f.path == "" {
		return f.key
	}
	return f.path + "." + f.key
}

// valueDone moves past the frame's current value.
func (f *keyFrame) valueDone() {
	switch {
	case f == nil:
	case f.object:
		f.wantKey = true
	default:
		f.index++
	}
}

// checkKeys refuses a JSON document in which an object has a key twice, or
// two keys equal under case folding ("kind" and "Kind").
func checkKeys(doc []byte) error {
	dec := json.NewDecoder(bytes.NewReader(doc))
	dec.UseNumber()
	var stack []*keyFrame
	for {
		tok, err := dec.Token()
		if errors.Is(err, io.EOF) {
			return nil
		}
		if err != nil {
			return notParsing(err)
		}
		var top *keyFrame
		if n := len(stack); n > 0 {
			top = stack[n-1]
		}
		switch tok {
		case json.Delim('{'), json.Delim('['):
			f := &keyFrame{object: tok == json.Delim('{'), wantKey: tok == json.Delim('{')}
			if top != nil {
				f.path = top.child()
			}
			stack = append(stack, f)
			continue
		case json.Delim('}'), json.Delim(']'):
			stack = stack[:len(stack)-1]
			if n := len(stack); n > 0 {
				stack[n-1].valueDone()
			}
			continue
		}
		if top == nil || !top.object || !top.wantKey {
			top.valueDone()
			continue
		}
		key, _ := tok.(string)
		folded := foldKey(key)
		if prev, ok := top.keys[folded]; ok {
			where := "at " + pathName(top.path) + " of " + describeDocument(doc)
			if prev == key {
				return duplicateKey(fmt.Sprintf("the key %q", key), where)
			}
			return styrmin.Errorf(styrmin.EINVALID, "The chart's rendered manifest has the keys %q and %q in one object, %s: "+
				"Kubernetes reads them as two keys and other readers as one, so Styrmin refuses keys that differ only in case.", prev, key, where)
		}
		if top.keys == nil {
			top.keys = map[string]string{}
		}
		top.keys[folded] = key
		top.key, top.wantKey = key, false
	}
}

// duplicateKey is the error of an object with a key twice; key names it
// ("the key \"kind\"").
func duplicateKey(key, where string) error {
	return styrmin.Errorf(styrmin.EINVALID, "The chart's rendered manifest has %s twice in one object, %s: "+
		"Kubernetes reads only one of them, so Styrmin refuses it rather than check the other.", key, where)
}

// yamlDuplicate finds the key of the YAML decoder's "key ... already set in map".
var yamlDuplicate = regexp.MustCompile(`key (.+) already set in map`)

// checkFields refuses an object (the top level of a document or a list's
// item) with a key, at its top level or in its metadata, that differs only
// in case from a field Kubernetes reads there ("Items", "Namespace").
func checkFields(fields, meta map[string]json.RawMessage, object string) error {
	for _, key := range slices.Sorted(maps.Keys(fields)) {
		if field, ok := caseOf(key, topFields); ok {
			return styrmin.Errorf(styrmin.EINVALID, "The chart's rendered manifest has the key %q at the top level of %s: Kubernetes reads %q there, "+
				"case-sensitively, so Styrmin refuses a key that differs from it only in case.", key, object, field)
		}
	}
	for _, key := range slices.Sorted(maps.Keys(meta)) {
		if field, ok := caseOf(key, metaFields); ok {
			return styrmin.Errorf(styrmin.EINVALID, "The chart's rendered manifest has the key %q in metadata of %s: Kubernetes reads %q there, "+
				"case-sensitively, so Styrmin refuses a key that differs from it only in case.", key, object, field)
		}
	}
	return nil
}

// caseOf returns the field of fields that key equals under case folding
// but is not.
func caseOf(key string, fields []string) (string, bool) {
	i := slices.IndexFunc(fields, func(f string) bool { return f != key && strings.EqualFold(f, key) })
	if i < 0 {
		return "", false
	}
	return fields[i], true
}

// foldKey maps each rune of s to the least rune equal to it under Unicode
// case folding, so two keys are strings.EqualFold exactly when their
// foldKeys are equal ("Kind", "kind" and "\u212aind", with a Kelvin sign).
func foldKey(s string) string {
	return strings.Map(func(r rune) rune {
		least := r
		for f := unicode.SimpleFold(r); f != r; f = unicode.SimpleFold(f) {
			least = min(least, f)
		}
		return least
	}, s)
}

// pathName names a path in a document.
func pathName(path string) string {
	if path == "" {
		return "the top level"
	}
	return path
}

// describeDocument names a document's object by its kind and name, as
// Kubernetes would read them, as well as it can.
func describeDocument(doc []byte) string {
	var o struct {
		Kind     string `json:"kind"`
		Metadata struct {
			Name string `json:"name"`
		} `json:"metadata"`
	}
	_ = kjson.UnmarshalCaseSensitivePreserveInts(doc, &o) // only names the object in an error
	return describe(o.Kind, o.Metadata.Name)
}

// describe names an object by its kind and name, either of which may be "".
func describe(kind, name string) string {
	if strings.ContainsFunc(kind, func(r rune) bool { return !unicode.IsLetter(r) && !unicode.IsDigit(r) }) {
		kind = fmt.Sprintf("%q", kind)
	}
	switch {
	case kind != "" && name != "":
		return fmt.Sprintf("the %s %q", kind, name)
	case kind != "":
		return "an object of kind " + kind
	case name != "":
		return fmt.Sprintf("the object %q", name)
	}
	return "an object"
}
