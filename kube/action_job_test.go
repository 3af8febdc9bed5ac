package kube

import (
	"fmt"
	"go/ast"
	"go/parser"
	"go/token"
	"io"
	"strconv"
	"strings"
	"testing"
	"testing/iotest"
	"unicode/utf8"

	"github.com/stretchr/testify/require"
)

func TestLocalClusterRunsTheActionJobsStyrminLabels(t *testing.T) {
	t.Parallel()
	// localkube is a separate module that cannot import this one: read its constants from the source.
	consts := stringConsts(t, "../localkube/actionrunner/runner.go")
	require.Equal(t, ActionJobLabel, consts["Label"], "actionrunner.Label")
	require.Equal(t, ActionJobLabelValue, consts["LabelValue"], "actionrunner.LabelValue")
}

// stringConsts returns the string constants declared in a Go file, by name.
func stringConsts(t *testing.T, file string) map[string]string {
	t.Helper()
	f, err := parser.ParseFile(token.NewFileSet(), file, nil, 0)
	require.NoError(t, err)
	out := map[string]string{}
	for _, decl := range f.Decls {
		gen, ok := decl.(*ast.GenDecl)
		if !ok || gen.Tok != token.CONST {
			continue
		}
		for _, spec := range gen.Specs {
			vs := spec.(*ast.ValueSpec)
			for i, name := range vs.Names {
				if i >= len(vs.Values) {
					continue
				}
				if lit, ok := vs.Values[i].(*ast.BasicLit); ok && lit.Kind == token.STRING {
					out[name.Name], err = strconv.Unquote(lit.Value)
					require.NoError(t, err)
				}
			}
		}
	}
	return out
}

func TestTailBuffer(t *testing.T) {
	t.Parallel()
	numbered := func(from, to int) string { // lines "from".."to", each ending in "\n"
		var b strings.Builder
		for i := from; i <= to; i++ {
			fmt.Fprintf(&b, "%d\n", i)
		}
		return b.String()
	}
	long := strings.Repeat("abcdefgh", 100<<10/8) + "END" // one line of 100 KiB and 3 bytes
	thousand := strings.Repeat("x", 999) + "\n"           // 1000-byte lines: 200 of them exceed 64 KiB
	accents := strings.Repeat("é", 40000) + "x"           // the 64 KiB cut falls inside an "é"
	tests := []struct {
		name      string
		log       string
		wantTail  string
		wantLines int
	}{
		{"empty", "", "", 0},
		{"one line", "oops\n", "oops", 1},
		{"no trailing newline", "a\nb", "a\nb", 2},
		{"CRLF", "a\r\nb\r\n", "a\nb", 2},
		{"blank line only", "\n", "", 1},
		{"exactly 200 lines", numbered(1, 200), strings.TrimSuffix(numbered(1, 200), "\n"), 200},
		{"201 lines keep the last 200", numbered(1, 201), strings.TrimSuffix(numbered(2, 201), "\n"), 200},
		{"5000 lines", numbered(1, 5000), strings.TrimSuffix(numbered(4801, 5000), "\n"), 200},
		{"a line over 64 KiB keeps its end", long, long[len(long)-TailMaxBytes:], 1},
		{"a long line then a short one", long + "\nend\n", long[len(long)-(TailMaxBytes-4):] + "\nend", 2},
		{"200 lines over 64 KiB", strings.Repeat(thousand, 300), strings.TrimSuffix(strings.Repeat(thousand, 300)[300*1000-TailMaxBytes-1:], "\n"), 66},
		{"a cut character is dropped", accents, accents[len(accents)-TailMaxBytes+1:], 1},
		{"invalid UTF-8 is replaced", "a\xffb\n", "a\uFFFDb", 1},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			for _, r := range []io.Reader{strings.NewReader(tt.log), iotest.HalfReader(strings.NewReader(tt.log))} {
				tail, lines, err := readTail(r)
				require.NoError(t, err)
				requireSameText(t, tt.wantTail, tail)
				require.Equal(t, tt.wantLines, lines)
				require.LessOrEqual(t, len(tail), TailMaxBytes)
				require.LessOrEqual(t, lines, TailMaxLines)
				require.True(t, utf8.ValidString(tail))
			}
		})
	}
}

func TestTailBoundsAreTheSeedsRule(t *testing.T) {
	t.Parallel()
	// "the last 200 lines, at most 64 KiB"
	require.Equal(t, 200, TailMaxLines)
	require.Equal(t, 65536, TailMaxBytes)
}

// requireSameText compares two possibly huge texts and reports a difference
// briefly: the lengths and both ends.
func requireSameText(t *testing.T, want, got string) {
	t.Helper()
	if want == got {
		return
	}
	ends := func(s string) string {
		if len(s) <= 80 {
			return fmt.Sprintf("%q", s)
		}
		return fmt.Sprintf("%q...%q", s[:40], s[len(s)-40:])
	}
	require.Fail(t, "texts differ", "want %d bytes %s\ngot  %d bytes %s", len(want), ends(want), len(got), ends(got))
}
