package drivers

import (
	"cmp"
	"fmt"
	"slices"
	"strings"
)

// Problem is one violation of the driver contract, located in its file.
type Problem struct {
	File    string `json:"file"`
	Line    int    `json:"line"`
	Column  int    `json:"column"`
	Field   string `json:"field,omitempty"`
	Message string `json:"message"`
}

// String formats the problem as "FILE:LINE:COL: FIELD: message".
func (p Problem) String() string {
	if p.Field == "" {
		return fmt.Sprintf("%s:%d:%d: %s", p.File, p.Line, p.Column, p.Message)
	}
	return fmt.Sprintf("%s:%d:%d: %s: %s", p.File, p.Line, p.Column, p.Field, p.Message)
}

// Problems is every violation found in a file, sorted by position; it is the
// error Parse and LoadBundle return for invalid content.
type Problems []Problem

// Error lists the problems one per line.
func (ps Problems) Error() string {
	lines := make([]string, len(ps))
	for i, p := range ps {
		lines[i] = p.String()
	}
	return strings.Join(lines, "\n")
}

// sort orders the problems by file, line, column and field.
func (ps Problems) sort() {
	slices.SortStableFunc(ps, func(a, b Problem) int {
		return cmp.Or(
			cmp.Compare(a.File, b.File),
			cmp.Compare(a.Line, b.Line),
			cmp.Compare(a.Column, b.Column),
			cmp.Compare(a.Field, b.Field),
		)
	})
}

// position is a line and column in a YAML file, both starting at 1.
type position struct{ line, column int }

// report collects problems for one file, locating them by field path.
type report struct {
	file      string
	positions map[string]position
	problems  Problems
}

// newReport starts an empty report for file.
func newReport(file string) *report {
	return &report{file: file, positions: map[string]position{}}
}

// at records a problem at an explicit position.
func (r *report) at(pos position, field, format string, args ...any) {
	r.problems = append(r.problems, Problem{
		File: r.file, Line: pos.line, Column: pos.column,
		Field: field, Message: fmt.Sprintf(format, args...),
	})
}

// add records a problem about field, located at the field's value or, when the
// field is absent, at the closest enclosing field that is present.
func (r *report) add(field, format string, args ...any) {
	r.at(r.locate(field), field, format, args...)
}

// reported tells whether a problem about field was already recorded.
func (r *report) reported(field string) bool {
	for _, p := range r.problems {
		if p.Field == field {
			return true
		}
	}
	return false
}

// locate finds the position of field or of its closest present ancestor.
func (r *report) locate(field string) position {
	for p := field; ; p = parentPath(p) {
		if pos, ok := r.positions[p]; ok {
			return pos
		}
		if p == "" {
			return position{line: 1, column: 1}
		}
	}
}

// result returns the sorted problems, or nil when there are none.
func (r *report) result() Problems {
	if len(r.problems) == 0 {
		return nil
	}
	r.problems.sort()
	return r.problems
}

// parentPath strips the last element of a field path: "a.b[1]" -> "a.b" -> "a" -> "".
func parentPath(p string) string {
	i := strings.LastIndexAny(p, ".[")
	if i < 0 {
		return ""
	}
	return p[:i]
}

// childPath joins a field path and a key.
func childPath(parent, key string) string {
	if !isPlainKey(key) {
		key = fmt.Sprintf("[%q]", key)
		return parent + key
	}
	if parent == "" {
		return key
	}
	return parent + "." + key
}

// indexPath joins a field path and a list index.
func indexPath(parent string, i int) string {
	return fmt.Sprintf("%s[%d]", parent, i)
}

// isPlainKey reports whether key can appear unquoted in a field path.
func isPlainKey(key string) bool {
	if key == "" {
		return false
	}
	for _, c := range key {
		if !(c == '_' || c == '-' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9') {
			return false
		}
	}
	return true
}
