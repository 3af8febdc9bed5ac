// Package redact replaces secrets in text that Styrmin shows to its users,
// such as the error line and the log of a crashed driver action, with Mark.
//
// A Redactor replaces two kinds of secret: literal values it was given (the
// run's action token, the deployment's secret parameter values), also in
// their common encodings, and common forms of secrets that it recognizes by
// their shape (authorization headers, passwords in URLs, password=...
// pairs, private keys, cloud and VCS access keys, ...; see forms.go). It
// keeps the label of a secret (the key, the header, the URL) so the text
// stays readable: "password=<redacted>". A secret that spans lines is
// replaced line by line, so the text keeps its line count.
//
// Redaction is best effort: the common forms do not cover every way a secret
// can be written, so driver actions must still not print secrets.
package redact

import (
	"cmp"
	"encoding/base64"
	"fmt"
	"net/url"
	"slices"
	"strings"
	"unicode/utf16"
	"unicode/utf8"
)

// Mark replaces every secret.
const Mark = "<redacted>"

// MinLen is the length, in characters other than leading and trailing white
// space, under which a literal value is ignored: replacing every "a" or "42"
// would destroy the text, and so short a value is no secret worth the name.
const MinLen = 4

// Redactor replaces literal values and the common forms of secrets with Mark.
// The zero Redactor replaces the common forms only. It is safe for
// concurrent use.
type Redactor struct {
	literals *strings.Replacer // nil when there are no literal values
	forms    []string          // the literal values and their encodings
}

// New returns a Redactor that also replaces the given literal values, and
// their URL-escaped, base64 and JSON-escaped forms, wherever they occur.
// Values shorter than MinLen are ignored. Where two values overlap, the
// longer one wins.
func New(values ...string) *Redactor {
	seen := map[string]bool{}
	var forms []string
	for _, v := range values {
		if utf8.RuneCountInString(strings.TrimSpace(v)) < MinLen {
			continue
		}
		for _, e := range encodings(v) {
			if !seen[e] {
				seen[e] = true
				forms = append(forms, e)
			}
		}
	}
	if len(forms) == 0 {
		return &Redactor{}
	}
	// A Replacer tries its pairs in argument order at each position:
	// longest first, so a value that contains another is replaced whole.
	slices.SortFunc(forms, func(a, b string) int {
		return cmp.Or(cmp.Compare(len(b), len(a)), strings.Compare(a, b))
	})
	pairs := make([]string, 0, 2*len(forms))
	for _, f := range forms {
		pairs = append(pairs, f, markLines(f))
	}
	return &Redactor{literals: strings.NewReplacer(pairs...), forms: forms}
}

// TrimCutValue returns s without its start when that start is the end of a
// literal value (or of one of its encodings) that is longer than it: the
// rest of a value cut in two where s was cut out of a longer text, which
// String could not recognize. A nil Redactor trims nothing.
func (r *Redactor) TrimCutValue(s string) string {
	if r == nil {
		return s
	}
	cut := 0
	for _, f := range r.forms {
		for i := 1; i < len(f) && len(f)-i > cut; i++ {
			if strings.HasPrefix(s, f[i:]) {
				cut = len(f) - i
				break
			}
		}
	}
	return s[cut:]
}

// encodings returns v and the forms in which it commonly surfaces: in a URL
// query or path, in base64 (padded, unpadded, URL-safe) and in a JSON string.
func encodings(v string) []string {
	b := []byte(v)
	forms := []string{
		v,
		url.QueryEscape(v),
		url.PathEscape(v),
		base64.StdEncoding.EncodeToString(b),
		base64.RawStdEncoding.EncodeToString(b),
		base64.RawURLEncoding.EncodeToString(b),
	}
	return append(forms, jsonEscape(v, false), jsonEscape(v, true))
}

// jsonEscape returns v as it appears inside a JSON string: with ASCII only,
// non-ASCII characters are \u escapes, as Python's json.dumps writes them.
func jsonEscape(v string, ascii bool) string {
	var b strings.Builder
	for _, c := range v {
		switch {
		case c == '"' || c == '\\':
			b.WriteByte('\\')
			b.WriteRune(c)
		case c == '\n':
			b.WriteString(`\n`)
		case c == '\r':
			b.WriteString(`\r`)
		case c == '\t':
			b.WriteString(`\t`)
		case c < 0x20 || (ascii && c > 0x7f && c <= 0xffff):
			fmt.Fprintf(&b, `\u%04x`, c)
		case ascii && c > 0xffff:
			r1, r2 := utf16.EncodeRune(c)
			fmt.Fprintf(&b, `\u%04x\u%04x`, r1, r2)
		default:
			b.WriteRune(c)
		}
	}
	return b.String()
}

// String returns s with every literal value and every common form of secret
// replaced with Mark. A nil Redactor replaces the common forms only.
func (r *Redactor) String(s string) string {
	if r != nil && r.literals != nil {
		s = r.literals.Replace(s)
	}
	// Hints found in the text before a replacement are still a superset of
	// those after it: Mark holds none of them.
	lower := asciiLower(s)
	for _, f := range blockForms {
		if f.wants(lower) {
			s = f.apply(s, lower)
		}
	}
	return redactLines(s)
}

// Lines redacts the lines of a log as one text, so that a secret spread over
// several lines (a private key printed line by line) is found; it returns as
// many lines as it was given, each redacted.
func (r *Redactor) Lines(lines []string) []string {
	out := strings.Split(r.String(strings.Join(lines, "\n")), "\n")
	res := make([]string, len(lines))
	i := 0
	for k, l := range lines {
		n := strings.Count(l, "\n") + 1
		res[k] = strings.Join(out[i:i+n], "\n")
		i += n
	}
	return res
}

// redactLines applies the line forms to each line of s.
func redactLines(s string) string {
	lower := asciiLower(s)
	var b strings.Builder
	changed := false
	for start := 0; ; {
		end := strings.IndexByte(s[start:], '\n')
		if end < 0 {
			end = len(s)
		} else {
			end += start
		}
		line, lowerLine := s[start:end], lower[start:end]
		for _, f := range lineForms {
			if f.wants(lowerLine) {
				if l := f.apply(line, lowerLine); l != line {
					line, lowerLine = l, asciiLower(l)
				}
			}
		}
		if line != s[start:end] && !changed {
			changed = true
			b.Grow(len(s) + len(Mark))
			b.WriteString(s[:start])
		}
		if changed {
			b.WriteString(line)
			if end < len(s) {
				b.WriteByte('\n')
			}
		}
		if end == len(s) {
			break
		}
		start = end + 1
	}
	if !changed {
		return s
	}
	return b.String()
}

// markLines returns the replacement of secret: Mark for each of its lines
// that is not empty, keeping the white space around a line's content and
// the line breaks.
func markLines(secret string) string {
	lines := strings.Split(secret, "\n")
	for i, l := range lines {
		core := strings.TrimSpace(l)
		switch {
		case l == "":
		case core == "":
			lines[i] = Mark
		default:
			at := strings.Index(l, core)
			lines[i] = l[:at] + Mark + l[at+len(core):]
		}
	}
	return strings.Join(lines, "\n")
}

// asciiLower returns s with ASCII letters in lower case; unlike
// strings.ToLower, it keeps every byte at its offset.
func asciiLower(s string) string {
	b := []byte(s)
	for i, c := range b {
		if 'A' <= c && c <= 'Z' {
			b[i] = c + 'a' - 'A'
		}
	}
	return string(b)
}
