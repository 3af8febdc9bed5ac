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

	"github.com/styrmin/styrmin/redact"
)

func TestTheLocalClustersSimulatedNodeKnowsTheActionJobsStyrminLabels(t *testing.T) {
	t.Parallel()
	// localkube is a separate module that cannot import this one: read its constants from the source.
	consts := stringConsts(t, "../localkube/controlplane/kwok_config.go")
	require.Equal(t, ActionJobLabel, consts["actionJobLabel"], "controlplane.actionJobLabel")
	require.Equal(t, ActionJobLabelValue, consts["actionJobLabelValue"], "controlplane.actionJobLabelValue")
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
		{"a long line then a short one: whole lines only", long + "\nend\n", "end", 1},
		{"200 lines over 64 KiB: as many whole lines as fit", strings.Repeat(thousand, 300), strings.TrimSuffix(strings.Repeat(thousand, 65), "\n"), 65},
		{"a cut character is dropped", accents, accents[len(accents)-TailMaxBytes+1:], 1},
		{"invalid UTF-8 is replaced", "a\xffb\n", "a\uFFFDb", 1},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			for _, r := range []io.Reader{strings.NewReader(tt.log), iotest.HalfReader(strings.NewReader(tt.log))} {
				tail, lines, err := readTail(r, nil)
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

func TestTailIsRedactedFirstThenBounded(t *testing.T) {
	t.Parallel()
	const secret = "Zq8-very-secret-value-of-the-run-0123456789abcdef" // 49 bytes
	r := redact.New(secret, "abcd")
	check := func(t *testing.T, tail string, lines int) {
		t.Helper()
		require.LessOrEqual(t, len(tail), TailMaxBytes, "at most 64 KiB after redaction")
		require.LessOrEqual(t, lines, TailMaxLines)
		require.Equal(t, strings.Count(tail, "\n")+1, lines)
		require.True(t, utf8.ValidString(tail))
		for i := 0; i+8 <= len(secret); i++ {
			require.NotContains(t, tail, secret[i:i+8], "no part of the secret is shown")
		}
	}

	t.Run("a redaction that lengthens the text", func(t *testing.T) {
		t.Parallel()
		line := strings.Repeat("abcd", 80)    // 320 bytes: 800 once redacted
		log := strings.Repeat(line+"\n", 200) // 64200 bytes, within the bound before redaction
		tail, lines, err := readTail(strings.NewReader(log), r)
		require.NoError(t, err)
		check(t, tail, lines)
		redacted := strings.Repeat(redact.Mark, 80)
		require.Equal(t, strings.TrimSuffix(strings.Repeat(redacted+"\n", 81), "\n"), tail, "the last whole lines that fit")
	})

	t.Run("a secret that the buffer's cut halves", func(t *testing.T) {
		t.Parallel()
		// One line: a secret cut in two where the buffer's end begins, then
		// secrets enough that, redacted, the whole kept end fits the bound.
		rest := strings.Repeat(secret, tailRawBytes/len(secret))
		half := secret[len(secret)-(tailRawBytes-len(rest)):]
		require.Greater(t, len(half), 8)
		log := strings.Repeat("x", 1000) + secret + rest
		require.True(t, strings.HasSuffix(log, half+rest))
		tail, lines, err := readTail(strings.NewReader(log), r)
		require.NoError(t, err)
		check(t, tail, lines)
		require.Equal(t, strings.Repeat(redact.Mark, len(rest)/len(secret)), tail)
	})

	t.Run("a password whose label the buffer's cut drops", func(t *testing.T) {
		t.Parallel()
		value := strings.Repeat("v4lue", 5000) // not a literal: only its label shows it is a secret
		body := strings.Repeat(strings.Repeat(secret, 50)+"\n", 100)
		log := "password=" + value + "\n" + body
		require.Less(t, len(body), tailRawBytes, "the buffer keeps the end of the password's line")
		tail, lines, err := readTail(strings.NewReader(log), r)
		require.NoError(t, err)
		check(t, tail, lines)
		require.NotContains(t, tail, "v4lue", "the cut line is dropped")
		require.Equal(t, 100, lines)
	})
}

func TestTailBoundsAreTheSeedsRule(t *testing.T) {
	t.Parallel()
	// "the last 200 lines, at most 64 KiB"
	require.Equal(t, 200, TailMaxLines)
	require.Equal(t, 65536, TailMaxBytes)
}

// TestTheFinalTailKeepsMoreOfTheEnd: the final read of a finished pod's log
// sees only the kubelet's latest file; after a rotation near the end it holds
// less of the end than the follower read, or nothing (seen once, with a 50 MB
// log: the tail came back empty).
func TestTheFinalTailKeepsMoreOfTheEnd(t *testing.T) {
	t.Parallel()
	followed := "line 1\nline 2\nthe end"
	tests := []struct {
		name       string
		final      string
		finalLines int
		seen       string
		seenLines  int
		want       string
	}{
		{"rotated after the last line", "", 0, followed, 3, followed},
		{"rotated before the last line", "the end", 1, followed, 3, followed},
		{"no rotation", followed, 3, followed, 3, followed},
		{"the follower stopped early", followed, 3, "line 1", 1, followed},
		{"the follower stopped early and saw more lines", "x\nthe end", 2, "a\nb\nc", 3, "x\nthe end"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			tail, lines := moreOfTheEnd(tt.final, tt.finalLines, tt.seen, tt.seenLines)
			require.Equal(t, tt.want, tail)
			require.Equal(t, strings.Count(tt.want, "\n")+1, lines)
		})
	}
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
