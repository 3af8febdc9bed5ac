package drivers

import (
	"crypto/sha256"
	"encoding/base64"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"reflect"
	"strconv"
	"strings"
	"text/template"

	"gopkg.in/yaml.v3"
)

// maxRepeat bounds the count of the repeat function.
const maxRepeat = 10_000

// valuesFunc is one function of the values template, with its documentation.
type valuesFunc struct {
	name, usage, doc string
	fn               any
}

// valuesFunctions is the safe function set of the values template: pure
// functions of their arguments; none reads the environment, files, the network
// or the clock. Their names and argument order follow Helm's (sprig).
func valuesFunctions() []valuesFunc {
	return []valuesFunc{
		{"quote", "quote VALUE", "VALUE as a double-quoted string, escaped.", func(v any) string { return strconv.Quote(toString(v)) }},
		{"squote", "squote VALUE", "VALUE as a single-quoted YAML string.", func(v any) string { return "'" + strings.ReplaceAll(toString(v), "'", "''") + "'" }},
		{"default", "default FALLBACK VALUE", "VALUE, or FALLBACK when VALUE is empty (zero, \"\", false, empty list).", func(def, v any) any { return ifEmpty(v, def) }},
		{"empty", "empty VALUE", "Whether VALUE is empty.", isEmpty},
		{"coalesce", "coalesce VALUE...", "The first VALUE that is not empty.", coalesce},
		{"ternary", "ternary YES NO COND", "YES when COND is true, else NO.", func(yes, no any, cond bool) any { return ifElse(cond, yes, no) }},
		{"required", "required MESSAGE VALUE", "VALUE, or fails rendering with MESSAGE when it is empty.", required},
		{"fail", "fail MESSAGE", "Fails rendering with MESSAGE.", func(msg string) (string, error) { return "", errors.New(msg) }},
		{"toYaml", "toYaml VALUE", "VALUE as YAML, without a trailing newline.", toYAML},
		{"toJson", "toJson VALUE", "VALUE as compact JSON.", toJSON},
		{"b64enc", "b64enc VALUE", "VALUE encoded as standard base64.", func(v any) string { return base64.StdEncoding.EncodeToString([]byte(toString(v))) }},
		{"b64dec", "b64dec STRING", "STRING decoded from standard base64.", b64dec},
		{"sha256sum", "sha256sum VALUE", "Hex SHA-256 of VALUE.", func(v any) string { sum := sha256.Sum256([]byte(toString(v))); return hex.EncodeToString(sum[:]) }},
		{"indent", "indent N STRING", "STRING with every line indented by N spaces.", func(n int, s string) string { return indent(n, s) }},
		{"nindent", "nindent N STRING", "A newline, then STRING with every line indented by N spaces.", func(n int, s string) string { return "\n" + indent(n, s) }},
		{"upper", "upper STRING", "STRING in upper case.", strings.ToUpper},
		{"lower", "lower STRING", "STRING in lower case.", strings.ToLower},
		{"trim", "trim STRING", "STRING without leading and trailing white space.", strings.TrimSpace},
		{"trimPrefix", "trimPrefix PREFIX STRING", "STRING without PREFIX.", func(prefix, s string) string { return strings.TrimPrefix(s, prefix) }},
		{"trimSuffix", "trimSuffix SUFFIX STRING", "STRING without SUFFIX.", func(suffix, s string) string { return strings.TrimSuffix(s, suffix) }},
		{"replace", "replace OLD NEW STRING", "STRING with every OLD replaced by NEW.", func(old, repl, s string) string { return strings.ReplaceAll(s, old, repl) }},
		{"contains", "contains PART STRING", "Whether STRING contains PART.", func(sub, s string) bool { return strings.Contains(s, sub) }},
		{"hasPrefix", "hasPrefix PREFIX STRING", "Whether STRING starts with PREFIX.", func(prefix, s string) bool { return strings.HasPrefix(s, prefix) }},
		{"hasSuffix", "hasSuffix SUFFIX STRING", "Whether STRING ends with SUFFIX.", func(suffix, s string) bool { return strings.HasSuffix(s, suffix) }},
		{"repeat", "repeat N STRING", fmt.Sprintf("STRING repeated N times (N at most %d).", maxRepeat), repeat},
		{"join", "join SEPARATOR LIST", "The elements of LIST as strings, joined with SEPARATOR.", join},
		{"splitList", "splitList SEPARATOR STRING", "The parts of STRING between SEPARATORs, as a list.", func(sep, s string) []string { return strings.Split(s, sep) }},
		{"list", "list VALUE...", "A list of the VALUEs.", func(vs ...any) []any { return vs }},
		{"dict", "dict KEY VALUE...", "A mapping of each KEY to the VALUE that follows it.", dict},
		{"toString", "toString VALUE", "VALUE as a string.", toString},
	}
}

// valuesFuncs is the function map of the values template.
func valuesFuncs() template.FuncMap {
	m := template.FuncMap{}
	for _, f := range valuesFunctions() {
		m[f.name] = f.fn
	}
	return m
}

// toString prints a value the way Helm's toString does.
func toString(v any) string {
	switch s := v.(type) {
	case nil:
		return ""
	case string:
		return s
	case []byte:
		return string(s)
	case error:
		return s.Error()
	case fmt.Stringer:
		return s.String()
	}
	return fmt.Sprint(v)
}

// isEmpty reports whether v is nil or the zero value of its type, or an empty collection.
func isEmpty(v any) bool {
	if v == nil {
		return true
	}
	rv := reflect.ValueOf(v)
	switch rv.Kind() {
	case reflect.Slice, reflect.Map, reflect.Array, reflect.String:
		return rv.Len() == 0
	}
	return rv.IsZero()
}

// ifEmpty returns v, or def when v is empty.
func ifEmpty(v, def any) any {
	if isEmpty(v) {
		return def
	}
	return v
}

// ifElse returns yes when cond holds, else no.
func ifElse(cond bool, yes, no any) any {
	if cond {
		return yes
	}
	return no
}

// coalesce returns the first non-empty value.
func coalesce(vs ...any) any {
	for _, v := range vs {
		if !isEmpty(v) {
			return v
		}
	}
	return nil
}

// required fails with msg when v is empty.
func required(msg string, v any) (any, error) {
	if isEmpty(v) {
		return nil, errors.New(msg)
	}
	return v, nil
}

// toYAML marshals v as YAML without the trailing newline.
func toYAML(v any) (string, error) {
	out, err := yaml.Marshal(v)
	if err != nil {
		return "", fmt.Errorf("toYaml: %w", err)
	}
	return strings.TrimSuffix(string(out), "\n"), nil
}

// toJSON marshals v as compact JSON.
func toJSON(v any) (string, error) {
	out, err := json.Marshal(v)
	if err != nil {
		return "", fmt.Errorf("toJson: %w", err)
	}
	return string(out), nil
}

// b64dec decodes standard base64.
func b64dec(s string) (string, error) {
	out, err := base64.StdEncoding.DecodeString(s)
	if err != nil {
		return "", fmt.Errorf("b64dec: %w", err)
	}
	return string(out), nil
}

// indent prefixes every line of s with n spaces.
func indent(n int, s string) string {
	pad := strings.Repeat(" ", max(n, 0))
	return pad + strings.ReplaceAll(s, "\n", "\n"+pad)
}

// repeat repeats s n times, at most maxRepeat.
func repeat(n int, s string) (string, error) {
	if n < 0 || n > maxRepeat {
		return "", fmt.Errorf("repeat: count %d is outside 0..%d", n, maxRepeat)
	}
	return strings.Repeat(s, n), nil
}

// join joins the elements of a list with sep.
func join(sep string, list any) (string, error) {
	rv := reflect.ValueOf(list)
	if rv.Kind() != reflect.Slice && rv.Kind() != reflect.Array {
		return "", fmt.Errorf("join: %T is not a list", list)
	}
	parts := make([]string, rv.Len())
	for i := range parts {
		parts[i] = toString(rv.Index(i).Interface())
	}
	return strings.Join(parts, sep), nil
}

// dict builds a mapping from alternating keys and values.
func dict(kv ...any) (map[string]any, error) {
	if len(kv)%2 != 0 {
		return nil, errors.New("dict: needs key and value pairs")
	}
	m := make(map[string]any, len(kv)/2)
	for i := 0; i < len(kv); i += 2 {
		m[toString(kv[i])] = kv[i+1]
	}
	return m, nil
}
