// Package version says which build of Styrmin this is: the version, revision
// and date stamped at build time, else what Go recorded in the binary, else "dev".
package version

import (
	"net/http"
	"runtime"
	"runtime/debug"
)

// The build stamps these (the Makefile's build and scripts/release), as in
//
//	go build -ldflags "-X github.com/styrmin/styrmin/version.version=$(cat VERSION)" ./cmd/styrmin
var (
	version  string
	revision string
	date     string
)

// Dev is the version of a build nothing stamped and Go recorded no version for.
const Dev = "dev"

// Info is what a build knows of itself.
type Info struct {
	// Version is the release (the VERSION file's at build time), or Dev.
	Version string `json:"version"`
	// Revision is the source's commit, when known.
	Revision string `json:"revision,omitempty"`
	// GoVersion is the Go release that built the binary.
	GoVersion string `json:"goVersion"`
	// BuildDate is when the binary was built (RFC 3339), when known.
	BuildDate string `json:"buildDate,omitempty"`
}

// Get returns this binary's build information.
func Get() Info {
	info, _ := debug.ReadBuildInfo()
	return resolve(Info{Version: version, Revision: revision, BuildDate: date}, info)
}

// resolve completes what was stamped with what Go recorded in the binary
// (its module's version and the commit), then with Dev.
func resolve(stamped Info, recorded *debug.BuildInfo) Info {
	out := stamped
	out.GoVersion = runtime.Version()
	if recorded != nil {
		out.GoVersion = recorded.GoVersion
		if out.Version == "" && recorded.Main.Version != "" && recorded.Main.Version != "(devel)" {
			out.Version = recorded.Main.Version
		}
		for _, s := range recorded.Settings {
			if s.Key == "vcs.revision" && out.Revision == "" {
				out.Revision = s.Value
			}
		}
	}
	if out.Version == "" {
		out.Version = Dev
	}
	return out
}

// UserAgent is the User-Agent of every HTTP request Styrmin sends: "Styrmin/" and the version.
func UserAgent() string { return "Styrmin/" + Get().Version }

// Transport sends requests through next (http.DefaultTransport when nil)
// with Styrmin's User-Agent, in place of any a library set (Helm's, ORAS's).
func Transport(next http.RoundTripper) http.RoundTripper {
	if next == nil {
		next = http.DefaultTransport
	}
	return userAgent{next: next, value: UserAgent()}
}

// userAgent is the RoundTripper Transport returns.
type userAgent struct {
	next  http.RoundTripper
	value string
}

// RoundTrip sends a copy of req with the User-Agent set.
func (u userAgent) RoundTrip(req *http.Request) (*http.Response, error) {
	req = req.Clone(req.Context())
	req.Header.Set("User-Agent", u.value)
	return u.next.RoundTrip(req)
}
