package drivers

import (
	"bytes"
	"crypto/sha256"
	"encoding/base64"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"reflect"
	"regexp"
	"strconv"
	"strings"
	"text/template"
	"unicode/utf8"

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
// or the clock. Their names and argument order follow Helm's (sprig). Every
// string or list they build is spent from b, which may be nil when only the
// documentation is wanted.
func valuesFunctions(b *budget) []valuesFunc {
	return []valuesFunc{
		{"quote", "quote VALUE", "VALUE as a double-quoted string, escaped.", b.quote},
		{"squote", "squote VALUE", "VALUE as a single-quoted YAML string.", b.squote},
		{"default", "default FALLBACK VALUE", "VALUE, or FALLBACK when VALUE is empty (zero, \"\", false, empty list).", func(def, v any) any { return ifEmpty(v, def) }},
		{"empty", "empty VALUE", "Whether VALUE is empty.", isEmpty},
		{"coalesce", "coalesce VALUE...", "The first VALUE that is not empty.", coalesce},
		{"ternary", "ternary YES NO COND", "YES when COND is true, else NO.", func(yes, no any, cond bool) any { return ifElse(cond, yes, no) }},
		{"required", "required MESSAGE VALUE", "VALUE, or fails rendering with MESSAGE when it is empty.", required},
		{"fail", "fail MESSAGE", "Fails rendering with MESSAGE.", func(msg string) (string, error) { return "", errors.New(msg) }},
		{"toYaml", "toYaml VALUE", "VALUE as YAML, without a trailing newline.", b.toYAML},
		{"toJson", "toJson VALUE", "VALUE as compact JSON.", b.toJSON},
		{"b64enc", "b64enc VALUE", "VALUE encoded as standard base64.", b.b64enc},
		{"b64dec", "b64dec STRING", "STRING decoded from standard base64.", b.b64dec},
		{"sha256sum", "sha256sum VALUE", "Hex SHA-256 of VALUE.", b.sha256sum},
		{"indent", "indent N STRING", "STRING with every line indented by N spaces.", func(n int, s string) (string, error) { return b.indent("", n, s) }},
		{"nindent", "nindent N STRING", "A newline, then STRING with every line indented by N spaces.", func(n int, s string) (string, error) { return b.indent("\n", n, s) }},
		{"upper", "upper STRING", "STRING in upper case.", b.stringFunc(strings.ToUpper)},
		{"lower", "lower STRING", "STRING in lower case.", b.stringFunc(strings.ToLower)},
		{"trim", "trim STRING", "STRING without leading and trailing white space.", strings.TrimSpace},
		{"trimPrefix", "trimPrefix PREFIX STRING", "STRING without PREFIX.", func(prefix, s string) string { return strings.TrimPrefix(s, prefix) }},
		{"trimSuffix", "trimSuffix SUFFIX STRING", "STRING without SUFFIX.", func(suffix, s string) string { return strings.TrimSuffix(s, suffix) }},
		{"replace", "replace OLD NEW STRING", "STRING with every OLD replaced by NEW.", b.replace},
		{"contains", "contains PART STRING", "Whether STRING contains PART.", func(sub, s string) bool { return strings.Contains(s, sub) }},
		{"hasPrefix", "hasPrefix PREFIX STRING", "Whether STRING starts with PREFIX.", func(prefix, s string) bool { return strings.HasPrefix(s, prefix) }},
		{"hasSuffix", "hasSuffix SUFFIX STRING", "Whether STRING ends with SUFFIX.", func(suffix, s string) bool { return strings.HasSuffix(s, suffix) }},
		{"repeat", "repeat N STRING", fmt.Sprintf("STRING repeated N times (N at most %d).", maxRepeat), b.repeat},
		{"join", "join SEPARATOR LIST", "The elements of LIST as strings, joined with SEPARATOR.", b.join},
		{"splitList", "splitList SEPARATOR STRING", "The parts of STRING between SEPARATORs, as a list.", b.splitList},
		{"list", "list VALUE...", "A list of the VALUEs.", b.list},
		{"dict", "dict KEY VALUE...", "A mapping of each KEY to the VALUE that follows it.", b.dict},
		{"toString", "toString VALUE", "VALUE as a string.", b.toString},
	}
}

// valuesFuncs is the function map of the values template, spending from b. It
// also replaces text/template's built-in print, printf, println, html, js and
// urlquery with versions that spend from b.
func valuesFuncs(b *budget) template.FuncMap {
	m := template.FuncMap{
		"print":    b.printFunc(fmt.Sprint),
		"println":  b.printFunc(fmt.Sprintln),
		"printf":   b.printf,
		"html":     b.escapeFunc(template.HTMLEscaper),
		"js":       b.escapeFunc(template.JSEscaper),
		"urlquery": b.escapeFunc(template.URLQueryEscaper),
	}
	for _, f := range valuesFunctions(b) {
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

// toString prints v as the toString function does, after checking that the
// text fits the budget; the caller spends what it builds from it.
func (b *budget) str(v any) (string, error) {
	if s, ok := v.(string); ok {
		return s, nil
	}
	if err := b.fits(printedSize(v, b.bytes)); err != nil {
		return "", err
	}
	return toString(v), nil
}

// toString is the toString function: v as a string.
func (b *budget) toString(v any) (string, error) {
	s, err := b.str(v)
	if err != nil {
		return "", err
	}
	return s, b.spend(len(s))
}

// quote is the quote function: v as an escaped double-quoted string.
func (b *budget) quote(v any) (string, error) {
	s, err := b.str(v)
	if err != nil {
		return "", err
	}
	return b.text(len(s)+2, func() string { return strconv.Quote(s) })
}

// squote is the squote function: v as a single-quoted YAML string.
func (b *budget) squote(v any) (string, error) {
	s, err := b.str(v)
	if err != nil {
		return "", err
	}
	return b.text(len(s)+2, func() string { return "'" + strings.ReplaceAll(s, "'", "''") + "'" })
}

// b64enc is the b64enc function: v encoded as standard base64.
func (b *budget) b64enc(v any) (string, error) {
	s, err := b.str(v)
	if err != nil {
		return "", err
	}
	return b.text(base64.StdEncoding.EncodedLen(len(s)), func() string { return base64.StdEncoding.EncodeToString([]byte(s)) })
}

// b64dec is the b64dec function: s decoded from standard base64.
func (b *budget) b64dec(s string) (string, error) {
	if err := b.fits(base64.StdEncoding.DecodedLen(len(s))); err != nil {
		return "", err
	}
	out, err := base64.StdEncoding.DecodeString(s)
	if err != nil {
		return "", fmt.Errorf("b64dec: %w", err)
	}
	return string(out), b.spend(len(out))
}

// sha256sum is the sha256sum function: the hex SHA-256 of v.
func (b *budget) sha256sum(v any) (string, error) {
	s, err := b.str(v)
	if err != nil {
		return "", err
	}
	sum := sha256.Sum256([]byte(s))
	return hex.EncodeToString(sum[:]), b.spend(2 * sha256.Size)
}

// stringFunc wraps a function that maps a string to a string of about the same size.
func (b *budget) stringFunc(fn func(string) string) func(string) (string, error) {
	return func(s string) (string, error) {
		return b.text(len(s), func() string { return fn(s) })
	}
}

// indent is the indent (head "") and nindent (head "\n") function: head and
// s with every line prefixed by n spaces.
func (b *budget) indent(head string, n int, s string) (string, error) {
	n = max(n, 0)
	lines := strings.Count(s, "\n") + 1
	return b.text(addSize(mulSize(n, lines), len(head)+len(s)), func() string {
		pad := strings.Repeat(" ", n)
		return head + pad + strings.ReplaceAll(s, "\n", "\n"+pad)
	})
}

// replace is the replace function: s with every old replaced by repl.
func (b *budget) replace(old, repl, s string) (string, error) {
	matches := strings.Count(s, old)
	if old == "" {
		matches = utf8.RuneCountInString(s) + 1
	}
	return b.text(addSize(len(s), mulSize(matches, len(repl))), func() string { return strings.ReplaceAll(s, old, repl) })
}

// repeat is the repeat function: s repeated n times, n at most maxRepeat.
func (b *budget) repeat(n int, s string) (string, error) {
	if n < 0 || n > maxRepeat {
		return "", fmt.Errorf("repeat: count %d is outside 0..%d", n, maxRepeat)
	}
	return b.text(mulSize(n, len(s)), func() string { return strings.Repeat(s, n) })
}

// join is the join function: the elements of list as strings, joined with sep.
func (b *budget) join(sep string, list any) (string, error) {
	rv := reflect.ValueOf(list)
	if rv.Kind() != reflect.Slice && rv.Kind() != reflect.Array {
		return "", fmt.Errorf("join: %T is not a list", list)
	}
	if err := b.fits(addSize(printedSize(list, b.bytes), mulSize(rv.Len(), len(sep)))); err != nil {
		return "", err
	}
	parts := make([]string, rv.Len())
	for i := range parts {
		parts[i] = toString(rv.Index(i).Interface())
	}
	return b.text(0, func() string { return strings.Join(parts, sep) })
}

// splitList is the splitList function: the parts of s between seps.
func (b *budget) splitList(sep, s string) ([]string, error) {
	if err := b.spend(mulSize(len(s)+1, listEntrySize)); err != nil {
		return nil, err
	}
	return strings.Split(s, sep), nil
}

// list is the list function: a list of vs.
func (b *budget) list(vs ...any) ([]any, error) {
	return vs, b.spend(mulSize(len(vs), listEntrySize))
}

// dict is the dict function: a mapping from alternating keys and values.
func (b *budget) dict(kv ...any) (map[string]any, error) {
	if len(kv)%2 != 0 {
		return nil, errors.New("dict: needs key and value pairs")
	}
	if err := b.spend(mulSize(len(kv), listEntrySize)); err != nil {
		return nil, err
	}
	m := make(map[string]any, len(kv)/2)
	for i := 0; i < len(kv); i += 2 {
		k, err := b.toString(kv[i])
		if err != nil {
			return nil, err
		}
		m[k] = kv[i+1]
	}
	return m, nil
}

// toYAML is the toYaml function: v as YAML without the trailing newline. The
// encoder writes to a buffer that fails once the budget is spent.
func (b *budget) toYAML(v any) (string, error) {
	if err := b.fits(printedSize(v, b.bytes)); err != nil {
		return "", err
	}
	out := &budgetBuffer{b: b}
	enc := yaml.NewEncoder(out)
	if err := enc.Encode(v); err != nil {
		return "", fmt.Errorf("toYaml: %w", err)
	}
	if err := enc.Close(); err != nil {
		return "", fmt.Errorf("toYaml: %w", err)
	}
	return strings.TrimSuffix(out.String(), "\n"), nil
}

// toJSON is the toJson function: v as compact JSON.
func (b *budget) toJSON(v any) (string, error) {
	if err := b.fits(printedSize(v, b.bytes)); err != nil {
		return "", err
	}
	out, err := json.Marshal(v)
	if err != nil {
		return "", fmt.Errorf("toJson: %w", err)
	}
	return string(out), b.spend(len(out))
}

// printFunc wraps print and println: the arguments printed with fn.
func (b *budget) printFunc(fn func(...any) string) func(...any) (string, error) {
	return func(args ...any) (string, error) {
		return b.text(printedSize(args, b.bytes), func() string { return fn(args...) })
	}
}

// maxPrintfWidth bounds the width and precision of a printf verb.
const maxPrintfWidth = 1000

// printf is the printf built-in with widths and precisions of at most
// maxPrintfWidth, so that a short format cannot build a long string.
func (b *budget) printf(format string, args ...any) (string, error) {
	verbs := strings.Count(format, "%")
	if strings.Contains(format, "*") {
		return "", errors.New("* widths are not allowed; write the width in the format")
	}
	for _, m := range printfNumber.FindAllStringSubmatch(format, -1) {
		for _, num := range m[1:] {
			if n, err := strconv.Atoi(num); num != "" && (err != nil || n > maxPrintfWidth) {
				return "", fmt.Errorf("width or precision %s is larger than %d", num, maxPrintfWidth)
			}
		}
	}
	estimate := addSize(printedSize(args, b.bytes), addSize(len(format), mulSize(verbs, maxPrintfWidth)))
	return b.text(estimate, func() string { return fmt.Sprintf(format, args...) })
}

// printfNumber finds the widths and precisions in a printf format.
var printfNumber = regexp.MustCompile(`%[-+# 0]*(?:\[\d+\])?(\d*)(?:\.(\d*))?`)

// escapeFunc wraps html, js and urlquery: the arguments printed and escaped with fn.
func (b *budget) escapeFunc(fn func(...any) string) func(...any) (string, error) {
	return func(args ...any) (string, error) {
		return b.text(printedSize(args, b.bytes), func() string { return fn(args...) })
	}
}

// budgetBuffer is a buffer that spends from a budget as it grows.
type budgetBuffer struct {
	bytes.Buffer
	b *budget
}

// Write appends p after spending its size.
func (w *budgetBuffer) Write(p []byte) (int, error) {
	if err := w.b.spend(len(p)); err != nil {
		return 0, err
	}
	return w.Buffer.Write(p)
}
