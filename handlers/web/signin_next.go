package web

import (
	"net/url"
	"strings"
)

// safeNext returns next when it is a clean path on this server, else "/". It
// keeps a sign-in link from sending the user to another site: browsers drop
// tabs and newlines from URLs and read '\' as '/', so "/\t/evil.example" or
// "/\evil.example" would leave the origin; only printable ASCII without '\'
// that parses as a bare path (no scheme, no host, not starting "//") passes.
func safeNext(next string) string {
	const fallback = "/"
	if !strings.HasPrefix(next, "/") || strings.HasPrefix(next, "//") {
		return fallback
	}
	for i := 0; i < len(next); i++ {
		if b := next[i]; b <= ' ' || b >= 0x7f || b == '\\' {
			return fallback
		}
	}
	u, err := url.Parse(next)
	if err != nil || u.Scheme != "" || u.Host != "" || u.User != nil || u.Opaque != "" ||
		!strings.HasPrefix(u.Path, "/") || strings.HasPrefix(u.Path, "//") {
		return fallback
	}
	return next
}
