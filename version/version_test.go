package version

import (
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"regexp"
	"runtime/debug"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
	"helm.sh/helm/v3/pkg/chart/loader"
)

func TestResolvePrefersTheStampThenGoThenDev(t *testing.T) {
	t.Parallel()
	recorded := &debug.BuildInfo{GoVersion: "go1.99", Main: debug.Module{Version: "v1.2.3"},
		Settings: []debug.BuildSetting{{Key: "vcs.revision", Value: "abc123"}, {Key: "vcs.time", Value: "2026-01-01T00:00:00Z"}}}
	tests := []struct {
		name     string
		stamped  Info
		recorded *debug.BuildInfo
		want     Info
	}{
		{"stamped", Info{Version: "0.2.0", Revision: "fff", BuildDate: "2026-12-05T00:00:00Z"}, recorded,
			Info{Version: "0.2.0", Revision: "fff", GoVersion: "go1.99", BuildDate: "2026-12-05T00:00:00Z"}},
		{"recorded by go", Info{}, recorded, Info{Version: "v1.2.3", Revision: "abc123", GoVersion: "go1.99"}},
		{"version stamped, revision recorded", Info{Version: "0.2.0"}, recorded, Info{Version: "0.2.0", Revision: "abc123", GoVersion: "go1.99"}},
		{"a development build", Info{}, &debug.BuildInfo{GoVersion: "go1.99", Main: debug.Module{Version: "(devel)"}}, Info{Version: Dev, GoVersion: "go1.99"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			require.Equal(t, tt.want, resolve(tt.stamped, tt.recorded))
		})
	}
	require.Equal(t, Dev, resolve(Info{}, nil).Version, "without build information")
	require.NotEmpty(t, resolve(Info{}, nil).GoVersion)
}

func TestTransportSetsStyrminsUserAgent(t *testing.T) {
	t.Parallel()
	got := make(chan string, 2)
	srv := httptest.NewServer(http.HandlerFunc(func(_ http.ResponseWriter, r *http.Request) { got <- r.UserAgent() }))
	defer srv.Close()
	client := &http.Client{Transport: Transport(nil)}

	req, err := http.NewRequest(http.MethodGet, srv.URL, nil)
	require.NoError(t, err)
	res, err := client.Do(req)
	require.NoError(t, err)
	require.NoError(t, res.Body.Close())
	require.Equal(t, "Styrmin/"+Get().Version, <-got)
	require.Empty(t, req.Header.Get("User-Agent"), "the caller's request is not changed")

	req.Header.Set("User-Agent", "Helm/3")
	res, err = client.Do(req)
	require.NoError(t, err)
	require.NoError(t, res.Body.Close())
	require.Equal(t, "Styrmin/"+Get().Version, <-got, "in place of a library's")
}

// TestTheProjectsFilesAgreeOnTheVersion holds the chart and the Python
// package to the VERSION file, the one the builds stamp.
func TestTheProjectsFilesAgreeOnTheVersion(t *testing.T) {
	t.Parallel()
	data, err := os.ReadFile(filepath.Join("..", "VERSION"))
	require.NoError(t, err)
	want := strings.TrimSpace(string(data))
	require.Regexp(t, `^\d+\.\d+\.\d+(-[0-9A-Za-z.-]+)?$`, want, "VERSION holds one semantic version")

	ch, err := loader.Load(filepath.Join("..", "deploy", "chart"))
	require.NoError(t, err)
	require.Equal(t, want, ch.Metadata.Version, "deploy/chart/Chart.yaml's version")
	require.Equal(t, want, ch.Metadata.AppVersion, "deploy/chart/Chart.yaml's appVersion")

	init, err := os.ReadFile(filepath.Join("..", "sdk", "python", "styrmin", "__init__.py"))
	require.NoError(t, err)
	m := regexp.MustCompile(`(?m)^__version__ = "([^"]*)"$`).FindSubmatch(init)
	require.NotNil(t, m, "sdk/python/styrmin/__init__.py sets __version__")
	require.Equal(t, want, string(m[1]), "the Python package's __version__")

	pyproject, err := os.ReadFile(filepath.Join("..", "sdk", "python", "pyproject.toml"))
	require.NoError(t, err)
	require.Contains(t, string(pyproject), `version = { attr = "styrmin.__version__" }`, "pyproject.toml takes the version from the package")
}
