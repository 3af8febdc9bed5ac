package release_test

import (
	"bytes"
	"encoding/json"
	"net"
	"net/http"
	"net/http/httptest"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/opencontainers/go-digest"
	specs "github.com/opencontainers/image-spec/specs-go"
	ocispec "github.com/opencontainers/image-spec/specs-go/v1"
	"github.com/stretchr/testify/require"
	"helm.sh/helm/v3/pkg/chart"
	"helm.sh/helm/v3/pkg/chart/loader"
	"helm.sh/helm/v3/pkg/registry"

	styrmin "github.com/styrmin/styrmin"
	"github.com/styrmin/styrmin/drivers"
	"github.com/styrmin/styrmin/release"
	"github.com/styrmin/styrmin/release/releasetest"
	"github.com/styrmin/styrmin/version"
)

// helloRepository serves hello-web at its usual place in a chart repository.
func helloRepository(t *testing.T, c *chart.Chart, archive []byte) *httptest.Server {
	return releasetest.ChartRepository(t, c, archive, releasetest.HelloWebPath, nil, false)
}

// ociRegistry serves the chart as an OCI artifact at charts/hello-web:1.0.0,
// with the read-only part of the distribution API a pull uses.
func ociRegistry(t *testing.T, c *chart.Chart, archive []byte) *httptest.Server {
	t.Helper()
	config, err := json.Marshal(c.Metadata)
	require.NoError(t, err)
	blobs := map[digest.Digest][]byte{digest.FromBytes(config): config, digest.FromBytes(archive): archive}
	manifest, err := json.Marshal(ocispec.Manifest{
		Versioned: specs.Versioned{SchemaVersion: 2},
		MediaType: ocispec.MediaTypeImageManifest,
		Config:    ocispec.Descriptor{MediaType: registry.ConfigMediaType, Digest: digest.FromBytes(config), Size: int64(len(config))},
		Layers:    []ocispec.Descriptor{{MediaType: registry.ChartLayerMediaType, Digest: digest.FromBytes(archive), Size: int64(len(archive))}},
	})
	require.NoError(t, err)
	manifestDigest := digest.FromBytes(manifest)
	serve := func(w http.ResponseWriter, r *http.Request, mediaType string, d digest.Digest, data []byte) {
		w.Header().Set("Content-Type", mediaType)
		w.Header().Set("Docker-Content-Digest", d.String())
		w.Header().Set("Content-Length", strconv.Itoa(len(data)))
		if r.Method != http.MethodHead {
			w.Write(data)
		}
	}
	srv := httptest.NewTLSServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		p := r.URL.Path
		switch {
		case p == "/v2/":
			w.WriteHeader(http.StatusOK)
		case p == "/v2/charts/hello-web/manifests/1.0.0" || p == "/v2/charts/hello-web/manifests/"+manifestDigest.String():
			serve(w, r, ocispec.MediaTypeImageManifest, manifestDigest, manifest)
		case strings.HasPrefix(p, "/v2/charts/hello-web/blobs/"):
			d := digest.Digest(strings.TrimPrefix(p, "/v2/charts/hello-web/blobs/"))
			if data, ok := blobs[d]; ok {
				serve(w, r, "application/octet-stream", d, data)
				return
			}
			http.NotFound(w, r)
		default:
			http.NotFound(w, r)
		}
	}))
	t.Cleanup(srv.Close)
	return srv
}

// ref names hello-web 1.0.0 at location.
func ref(location, name string) drivers.ChartRef {
	return drivers.ChartRef{Location: location, Chart: name, Version: "1.0.0"}
}

// sha256Of is data's digest as spec.helm.main.digest writes it.
func sha256Of(data []byte) string {
	return digest.FromBytes(data).String()
}

// requireChart checks that archive is the hello-web chart.
func requireChart(t *testing.T, hello *chart.Chart, archive []byte) {
	t.Helper()
	c, err := loader.LoadArchive(bytes.NewReader(archive))
	require.NoError(t, err)
	require.Equal(t, "hello-web", c.Metadata.Name)
	require.Equal(t, "1.0.0", c.Metadata.Version)
	require.Equal(t, hello.Values, c.Values)
	require.Len(t, c.Templates, len(hello.Templates))
}

// requireRefused checks that err is an error of code whose message contains msg.
func requireRefused(t *testing.T, err error, code, msg string) {
	t.Helper()
	require.Error(t, err)
	require.Equal(t, code, styrmin.ErrorCode(err), "%v", err)
	require.Contains(t, styrmin.ErrorMessage(err), msg)
}

func TestFetchChart(t *testing.T) {
	t.Parallel()
	hello, archive := releasetest.HelloWeb(t)
	repoServer := helloRepository(t, hello, archive)
	slowServer := releasetest.ChartRepository(t, hello, archive, releasetest.HelloWebPath, nil, true)
	oci := ociRegistry(t, hello, archive)
	ociHost := strings.TrimPrefix(oci.URL, "https://")
	repoFetcher, repoHosts := releasetest.Trusting(repoServer)
	ociFetcher, ociHosts := releasetest.Trusting(oci)
	slowFetcher, slowHosts := releasetest.Trusting(slowServer)
	withDigest := func(r drivers.ChartRef, d string) drivers.ChartRef { r.Digest = d; return r }
	budgeted, timed := repoFetcher, slowFetcher
	budgeted.MaxBytes, timed.Timeout = 1024, 200*time.Millisecond

	tests := []struct {
		name    string
		fetcher release.ChartFetcher
		allowed release.ChartHosts
		ref     drivers.ChartRef
		code    string // "" for success
		msg     string
	}{
		{"https repository", repoFetcher, repoHosts, ref(repoServer.URL+"/stable", "hello-web"), "", ""},
		{"https repository with the chart's digest", repoFetcher, repoHosts, withDigest(ref(repoServer.URL+"/stable", "hello-web"), sha256Of(archive)), "", ""},
		{"https repository with another digest", repoFetcher, repoHosts, withDigest(ref(repoServer.URL+"/stable", "hello-web"), sha256Of([]byte("other"))),
			styrmin.EINVALID, "has digest " + sha256Of(archive) + ", not " + sha256Of([]byte("other"))},
		{"https repository without that version", repoFetcher, repoHosts,
			drivers.ChartRef{Location: repoServer.URL + "/stable", Chart: "hello-web", Version: "9.9.9"}, styrmin.EUNAVAILABLE, "cannot be downloaded"},
		{"https repository without index", repoFetcher, repoHosts, ref(repoServer.URL+"/nothing", "hello-web"), styrmin.EUNAVAILABLE, "cannot be downloaded"},
		{"download past its byte budget", budgeted, repoHosts, ref(repoServer.URL+"/stable", "hello-web"), styrmin.EINVALID, "is larger than 1 KiB"},
		{"download past its time", timed, slowHosts, ref(slowServer.URL+"/stable", "hello-web"), styrmin.EUNAVAILABLE, "did not download in time"},
		{"oci registry", ociFetcher, ociHosts, ref("oci://"+ociHost+"/charts/hello-web", ""), "", ""},
		{"oci registry with the chart's digest", ociFetcher, ociHosts, withDigest(ref("oci://"+ociHost+"/charts/hello-web", ""), sha256Of(archive)), "", ""},
		{"oci registry without that version", ociFetcher, ociHosts,
			drivers.ChartRef{Location: "oci://" + ociHost + "/charts/hello-web", Version: "2.0.0"}, styrmin.EUNAVAILABLE, "cannot be downloaded"},
		{"oci chart of another name", ociFetcher, ociHosts, ref("oci://"+ociHost+"/charts/hello-web", "other"), styrmin.EINVALID, "is hello-web 1.0.0, not other 1.0.0"},
		{"chart inside the bundle", release.ChartFetcher{}, nil, ref("./chart", ""), styrmin.EINVALID, "is not an oci:// reference or an https:// repository"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			data, err := tt.fetcher.Fetch(t.Context(), tt.ref, tt.allowed)
			if tt.code != "" {
				requireRefused(t, err, tt.code, tt.msg)
				return
			}
			require.NoError(t, err)
			requireChart(t, hello, data)
		})
	}
}

func TestFetchChartSendsStyrminsUserAgent(t *testing.T) {
	t.Parallel()
	hello, archive := releasetest.HelloWeb(t)
	for name, srv := range map[string]*httptest.Server{"https repository": helloRepository(t, hello, archive), "oci registry": ociRegistry(t, hello, archive)} {
		t.Run(name, func(t *testing.T) {
			agents := make(chan string, 100)
			serve := srv.Config.Handler
			srv.Config.Handler = http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				agents <- r.UserAgent()
				serve.ServeHTTP(w, r)
			})
			location := ref(srv.URL+"/stable", "hello-web")
			if name == "oci registry" {
				location = ref("oci://"+strings.TrimPrefix(srv.URL, "https://")+"/charts/hello-web", "")
			}
			fetcher, hosts := releasetest.Trusting(srv)
			_, err := fetcher.Fetch(t.Context(), location, hosts)
			require.NoError(t, err)
			close(agents)
			n := 0
			for agent := range agents {
				require.Equal(t, version.UserAgent(), agent, "in place of Helm's")
				n++
			}
			require.NotZero(t, n)
		})
	}
}

// countingListener accepts TCP connections on a loopback port and counts
// them: the address an attack points a download at.
type countingListener struct {
	net.Listener
	remotes chan string
}

// listenCounting starts a countingListener, closed when the test ends.
func listenCounting(t *testing.T) *countingListener {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	l := &countingListener{Listener: ln, remotes: make(chan string, 100)}
	go func() {
		for {
			conn, err := ln.Accept()
			if err != nil {
				return
			}
			l.remotes <- conn.RemoteAddr().String()
			conn.Close()
		}
	}()
	t.Cleanup(func() { ln.Close() })
	return l
}

// port is the listener's port.
func (l *countingListener) port() string {
	return strconv.Itoa(l.Addr().(*net.TCPAddr).Port)
}

// accepted is how many connections the listener accepted before now. It
// connects once itself and counts what came before that probe, so that a
// connection whose accept is still under way is counted too.
func (l *countingListener) accepted(t *testing.T) int {
	t.Helper()
	probe, err := net.Dial("tcp", l.Addr().String())
	require.NoError(t, err)
	defer probe.Close()
	for n := 0; ; n++ {
		select {
		case remote := <-l.remotes:
			if remote == probe.LocalAddr().String() {
				return n
			}
		case <-time.After(10 * time.Second):
			t.Fatal("the probe connection was not accepted")
		}
	}
}

func TestFetchChartRefusesAddressesThatAreNotPublic(t *testing.T) {
	t.Parallel()
	hello, archive := releasetest.HelloWeb(t)
	tests := []struct {
		name string
		// chartURL is where the index says the archive is; %s is the counting listener's port.
		chartURL  string
		redirects map[string]string
		msg       string
	}{
		{"index pointing at a loopback port", "https://127.0.0.1:%s/hello-web-1.0.0.tgz", nil,
			"the chart's host 127.0.0.1:%s resolves to a loopback address, which chart downloads do not reach. If the host is trusted, an admin can allow it"},
		{"index pointing at a name that resolves to loopback", "https://localhost:%s/hello-web-1.0.0.tgz", nil,
			"the chart's host localhost:%s resolves to a loopback address"},
		{"index pointing at plain http", "http://127.0.0.1:%s/hello-web-1.0.0.tgz", nil,
			"it leads to http://127.0.0.1:%s/hello-web-1.0.0.tgz, and charts are downloaded over https only"},
		{"redirect chain to a loopback port", "hop1", map[string]string{"/stable/hop1": "/stable/hop2", "/stable/hop2": "https://127.0.0.1:%s/hello-web-1.0.0.tgz"},
			"the chart's host 127.0.0.1:%s resolves to a loopback address"},
		{"redirect to plain http", "hop1", map[string]string{"/stable/hop1": "http://127.0.0.1:%s/hello-web-1.0.0.tgz"},
			"it leads to http://127.0.0.1:%s/hello-web-1.0.0.tgz, and charts are downloaded over https only"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			target := listenCounting(t)
			withPort := func(s string) string { return strings.ReplaceAll(s, "%s", target.port()) }
			redirects := map[string]string{}
			for from, to := range tt.redirects {
				redirects[from] = withPort(to)
			}
			srv := releasetest.ChartRepository(t, hello, archive, withPort(tt.chartURL), redirects, false)
			fetcher, allowed := releasetest.Trusting(srv)
			_, err := fetcher.Fetch(t.Context(), ref(srv.URL+"/stable", "hello-web"), allowed)
			requireRefused(t, err, styrmin.EINVALID, withPort(tt.msg))
			require.Zero(t, target.accepted(t), "no connection reaches the attacked address")
		})
	}
}

func TestFetchChartRefusesARepositoryAtAnAddressThatIsNotPublic(t *testing.T) {
	t.Parallel()
	tests := []struct {
		location string
		kind     string
	}{
		{"https://10.1.2.3/stable", "a private address"},
		{"https://192.168.0.1:8443/stable", "a private address"},
		{"https://[fd00::1]/stable", "a private address"},
		{"https://169.254.169.254/latest", "a link-local address"},
		{"https://[fe80::1]/stable", "a link-local address"},
		{"https://100.64.0.1/stable", "a shared (carrier-grade NAT) address"},
		{"https://0.0.0.0/stable", "an unspecified address"},
		{"https://[::ffff:127.0.0.1]/stable", "a loopback address"},
		{"https://[64:ff9b::7f00:1]/stable", "a loopback address"},
		{"https://[64:ff9b::a9fe:a9fe]/latest", "a link-local address"},
		{"https://[2002:a9fe:a9fe::1]/latest", "a link-local address"},
	}
	for _, tt := range tests {
		t.Run(tt.location, func(t *testing.T) {
			t.Parallel()
			_, err := release.ChartFetcher{}.Fetch(t.Context(), ref(tt.location, "hello-web"), nil)
			requireRefused(t, err, styrmin.EINVALID, "resolves to "+tt.kind+", which chart downloads do not reach")
			var refused *release.AddressRefused
			require.ErrorAs(t, err, &refused, "refused before connecting")
		})
	}
}

func TestFetchChartReachesAnAllowedHostAtAnyPortOrTheAllowedOne(t *testing.T) {
	t.Parallel()
	hello, archive := releasetest.HelloWeb(t)
	srv := helloRepository(t, hello, archive)
	fetcher, _ := releasetest.Trusting(srv)
	_, port, err := net.SplitHostPort(srv.Listener.Addr().String())
	require.NoError(t, err)
	for _, allowed := range []release.ChartHosts{{"127.0.0.1"}, {"127.0.0.1:" + port}} {
		data, err := fetcher.Fetch(t.Context(), ref(srv.URL+"/stable", "hello-web"), allowed)
		require.NoError(t, err, "allowed %v", allowed)
		requireChart(t, hello, data)
	}
	_, err = fetcher.Fetch(t.Context(), ref(srv.URL+"/stable", "hello-web"), release.ChartHosts{"127.0.0.1:1"})
	requireRefused(t, err, styrmin.EINVALID, "resolves to a loopback address")
}

func TestParseChartHosts(t *testing.T) {
	t.Parallel()
	hosts, err := release.ParseChartHosts([]string{" Charts.Internal. ", "", "charts.internal", "registry.local:5000", "10.0.0.5", "FD00::1", "[fd00::1]:8443"})
	require.NoError(t, err)
	require.Equal(t, release.ChartHosts{"charts.internal", "registry.local:5000", "10.0.0.5", "fd00::1", "[fd00::1]:8443"}, hosts,
		"entries are normalized, blank ones and duplicates left out")
	for _, bad := range []string{"https://charts.internal", "charts.internal:0", "charts.internal:http", "char ts", "charts.internal/path"} {
		_, err := release.ParseChartHosts([]string{"ok.example", bad})
		require.Equal(t, styrmin.EINVALID, styrmin.ErrorCode(err), bad)
		require.Contains(t, styrmin.ErrorFields(err)["hosts"], bad+" is not a host name", bad)
	}
}
