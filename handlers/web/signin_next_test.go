package web

import (
	"net/url"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

// openRedirects are next values that leave the origin in some browser or
// parser, decoded as the handler sees them.
var openRedirects = []string{
	"https://evil.example/",
	"http:evil.example",
	"//evil.example/",
	"///evil.example/",
	`/\evil.example`,
	`\/evil.example`,
	`/\/evil.example`,
	"/\t/evil.example",
	"/\n/evil.example",
	"/\r/evil.example",
	"/ /evil.example",
	"\t//evil.example",
	" /evil",
	"/%2F/evil.example", // decodes to a second slash in url.Parse
	"%2F%2Fevil.example",
	"javascript:alert(1)",
	"JaVaScRiPt:alert(1)",
	"data:text/html,<script>alert(1)</script>",
	"evil.example",
	"",
	"/\x00/evil.example",
	"/\x7f",
	"/\u00a0/evil.example",
	"/\u3000/evil.example",
	"/path\u2028",
	"/users?x=\\evil",
}

func TestSafeNext(t *testing.T) {
	t.Parallel()
	tests := []struct{ next, want string }{
		{"/", "/"},
		{"/users", "/users"},
		{"/drivers/redis?version=1.2.0#readme", "/drivers/redis?version=1.2.0#readme"},
		{"/drivers?q=a%20b&label=db", "/drivers?q=a%20b&label=db"},
		{"/drivers/a%2Fb", "/drivers/a%2Fb"},
	}
	for _, next := range openRedirects {
		tests = append(tests, struct{ next, want string }{next, "/"})
	}
	for _, tt := range tests {
		require.Equal(t, tt.want, safeNext(tt.next), "%q", tt.next)
	}
}

// browserResolve resolves next against base roughly as a WHATWG URL parser
// does: tabs and newlines are removed and '\' is read as '/'.
func browserResolve(base *url.URL, next string) (*url.URL, error) {
	cleaned := strings.NewReplacer("\t", "", "\n", "", "\r", "", `\`, "/").Replace(next)
	cleaned = strings.TrimLeft(cleaned, "\x00\x01\x02\x03\x04\x05\x06\x07\x08\x0b\x0c\x0e\x0f\x10\x11\x12\x13\x14\x15\x16\x17\x18\x19\x1a\x1b\x1c\x1d\x1e\x1f ")
	ref, err := url.Parse(cleaned)
	if err != nil {
		return nil, err
	}
	return base.ResolveReference(ref), nil
}

// FuzzSafeNext checks that whatever safeNext accepts stays on this server,
// both for Go's URL parser and for a browser's reading of the address.
func FuzzSafeNext(f *testing.F) {
	for _, next := range openRedirects {
		f.Add(next)
	}
	for _, next := range []string{"/", "/users", "/drivers/redis?version=1#x", "/a/../b", "/%5C%5Cevil", "/.//evil", "/..//evil"} {
		f.Add(next)
	}
	base, err := url.Parse("https://styrmin.example/drivers/x")
	if err != nil {
		f.Fatal(err)
	}
	f.Fuzz(func(t *testing.T, next string) {
		got := safeNext(next)
		if got != next && got != "/" {
			t.Fatalf("safeNext(%q) = %q: neither the input nor /", next, got)
		}
		ref, err := url.Parse(got)
		if err != nil {
			t.Fatalf("safeNext(%q) = %q does not parse: %v", next, got, err)
		}
		if u := base.ResolveReference(ref); u.Host != base.Host || u.Scheme != base.Scheme || u.User != nil {
			t.Fatalf("safeNext(%q) = %q leaves the origin for url.Parse: %s", next, got, u)
		}
		u, err := browserResolve(base, got)
		if err != nil || u.Host != base.Host || u.Scheme != base.Scheme || u.User != nil {
			t.Fatalf("safeNext(%q) = %q leaves the origin in a browser: %v %v", next, got, u, err)
		}
	})
}
