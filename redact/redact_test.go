package redact_test

import (
	"encoding/base64"
	"net/url"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/styrmin/styrmin/redact"
)

// TestStringLiteralValues checks that the values given to New are replaced
// wherever and however they appear.
func TestStringLiteralValues(t *testing.T) {
	t.Parallel()
	const token = "q2Vx9/Lm3+Np7 Rt5=" // an odd value, to give every encoding something to change
	tests := []struct {
		name   string
		values []string
		in     string
		want   string
	}{
		{"plain", []string{token}, "failed: " + token + " rejected", "failed: <redacted> rejected"},
		{"url query escaped", []string{token}, "GET /x?t=" + url.QueryEscape(token) + "&a=1", "GET /x?t=<redacted>&a=1"},
		{"url path escaped", []string{token}, "GET /x/" + url.PathEscape(token) + "/y", "GET /x/<redacted>/y"},
		{"base64", []string{token}, "value " + base64.StdEncoding.EncodeToString([]byte(token)) + " end", "value <redacted> end"},
		{"base64 url unpadded", []string{"\xfb\xffsecret"}, "v=" + base64.RawURLEncoding.EncodeToString([]byte("\xfb\xffsecret")), "v=<redacted>"},
		{"json escaped", []string{`pa"ss\wörd`}, `{"x": "pa\"ss\\w\u00f6rd"}`, `{"x": "<redacted>"}`},
		{"several occurrences", []string{"hunter22"}, "hunter22 hunter22hunter22", "<redacted> <redacted><redacted>"},
		{"value inside another", []string{"secret", "topsecret99"}, "topsecret99 and secret", "<redacted> and <redacted>"},
		{"overlapping values", []string{"abcdef", "defghi"}, "abcdefghi", "<redacted>ghi"},
		{"short values ignored", []string{"", "a", "42", " ab ", "abc"}, "a 42 ab abc", "a 42 ab abc"},
		{"four characters kept", []string{"wxyz"}, "wxyz", "<redacted>"},
		{"multi-line value keeps lines", []string{"line one\nline two"}, "a\nline one\nline two\nb", "a\n<redacted>\n<redacted>\nb"},
		{"duplicates", []string{"dup-value", "dup-value"}, "dup-value", "<redacted>"},
		{"no value", nil, "nothing here", "nothing here"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			require.Equal(t, tt.want, redact.New(tt.values...).String(tt.in))
		})
	}
}

// TestZeroRedactor checks that the zero Redactor replaces the common forms.
func TestZeroRedactor(t *testing.T) {
	t.Parallel()
	var r redact.Redactor
	require.Equal(t, "password=<redacted>", r.String("password=hunter2"))
}

// TestLines checks that Lines keeps the number and order of lines and finds
// a secret spread over several of them.
func TestLines(t *testing.T) {
	t.Parallel()
	r := redact.New("sta_q2Vx9Lm3Np7R")
	in := []string{
		"starting",
		"-----BEGIN PRIVATE KEY-----",
		"MIIEvQIBADANBgkqhkiG9w0BAQEFAASC",
		"-----END PRIVATE KEY-----",
		"two\nlines with sta_q2Vx9Lm3Np7R",
		"",
		"done",
	}
	want := []string{
		"starting",
		"-----BEGIN PRIVATE KEY-----",
		"<redacted>",
		"-----END PRIVATE KEY-----",
		"two\nlines with <redacted>",
		"",
		"done",
	}
	require.Equal(t, want, r.Lines(in))
	require.Empty(t, r.Lines(nil))
}

// TestStringCrashError checks the case the package exists for: the error
// line and the log of a crashed action, with the action token and a secret
// parameter value among common forms of secrets.
func TestStringCrashError(t *testing.T) {
	t.Parallel()
	const token = "sta_Zm9vYmFyYmF6cXV4cXV1eDEyMzQ1Njc4OTBhYmNkZWY"
	r := redact.New(token, "pg-superuser-Pa55")
	line := "ERROR psycopg2.OperationalError: connection to postgres://postgres:pg-superuser-Pa55@db:5432/app failed " +
		"(token " + url.QueryEscape(token) + ", PGPASSWORD=pg-superuser-Pa55)"
	out := r.String(line)
	require.Equal(t, "ERROR psycopg2.OperationalError: connection to postgres://postgres:<redacted>@db:5432/app failed "+
		"(token <redacted>, PGPASSWORD=<redacted>)", out)
}

// FuzzRedact checks that a literal value of at least MinLen characters,
// embedded anywhere in any text, never survives outside a Mark, and that
// redaction keeps the line count; its seeds run with every go test.
func FuzzRedact(f *testing.F) {
	for _, seed := range []struct{ before, value, after string }{
		{"password=", "hunter2", " host=db"},
		{"", "sta_q2Vx9Lm3Np7Rt5Wz1Ab4", ""},
		{"a\nb", "line\nbreak", "c\n"},
		{"<redact", "ed>x", "y"},
		{"xx", "acte", "d>"},
		{"-----BEGIN RSA PRIVATE KEY-----\n", "MIIEowIBAAKCAQEA", "\n-----END RSA PRIVATE KEY-----"},
		{"url ", "p@ss w/rd", "?x"},
		{"", "aaaa", "aaaaaaa"},
		{"", "    \n    ", ""},
		{"\xff", "\xfe\xfd\xfc\xfb", "é"},
	} {
		f.Add(seed.before, seed.value, seed.after)
	}
	f.Fuzz(func(t *testing.T, before, value, after string) {
		if len([]rune(strings.TrimSpace(value))) < redact.MinLen {
			t.Skip()
		}
		in := before + value + after
		out := redact.New(value).String(in)
		for _, piece := range strings.Split(out, redact.Mark) {
			require.NotContains(t, piece, value)
		}
		require.Equal(t, strings.Count(in, "\n"), strings.Count(out, "\n"))
	})
}

// BenchmarkString redacts a 1 MB log of ordinary lines with a few secrets.
func BenchmarkString(b *testing.B) {
	lines := []string{
		"2026-12-02T15:36:51.123Z INFO pg_dump: dumping contents of table \"public.orders\"",
		"2026-12-02T15:36:51.124Z INFO connecting to postgres://app:S3cr3tPass@db:5432/app",
		"2026-12-02T15:36:51.125Z WARNING token count: 5, retrying with password=hunter2xyz",
		"2026-12-02T15:36:51.126Z INFO {\"event\": \"progress\", \"done\": 1234, \"total\": 99999}",
	}
	var sb strings.Builder
	for i := 0; sb.Len() < 1<<20; i++ {
		sb.WriteString(lines[i%len(lines)])
		sb.WriteByte('\n')
	}
	in := sb.String()
	r := redact.New("sta_q2Vx9Lm3Np7Rt5Wz1Ab4", "hunter2xyz")
	b.SetBytes(int64(len(in)))
	for b.Loop() {
		r.String(in)
	}
}

func TestTrimCutValue(t *testing.T) {
	t.Parallel()
	r := redact.New("hunter2-very-secret", "line one\nline two")
	tests := []struct{ in, want string }{
		{"very-secret and more", " and more"},                      // the end of a value cut in two
		{"-secret", ""},                                            // nothing but the end
		{"ZXJ5LXNlY3JldA== rest", " rest"},                         // the end of its base64 form
		{"e two\nnext", "\nnext"},                                  // a value over lines, cut in its last line
		{"an ordinary start", "an ordinary start"},                 // no value ends here
		{"hunter2-very-secret whole", "hunter2-very-secret whole"}, // a whole value is String's
	}
	for _, tt := range tests {
		require.Equal(t, tt.want, r.TrimCutValue(tt.in), tt.in)
	}
	var none *redact.Redactor
	require.Equal(t, "-secret", none.TrimCutValue("-secret"))
}

func TestJSONRedactsStringValuesAndKeepsTheDocument(t *testing.T) {
	r := redact.New(`s3cr"et-value`)
	doc := []byte(`{"notes":"password is s3cr\"et-value","list":["x s3cr\"et-value y",7,1.50,null,true],"s3cr\"et-value":"key stays","n":{"m":"s3cr\"et-value"}}`)
	out, err := r.JSON(doc)
	require.NoError(t, err)
	require.JSONEq(t, `{"notes":"password is <redacted>","list":["x <redacted> y",7,1.50,null,true],"s3cr\"et-value":"key stays","n":{"m":"<redacted>"}}`, string(out))

	_, err = r.JSON([]byte(`{"cut":`))
	require.Error(t, err, "a document that is not JSON is an error, not passed through")
}
