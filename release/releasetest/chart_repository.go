package releasetest

import (
	"crypto/x509"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"os"
	"testing"

	"github.com/opencontainers/go-digest"
	"github.com/stretchr/testify/require"
	"helm.sh/helm/v3/pkg/chart"
	"helm.sh/helm/v3/pkg/chartutil"
	"helm.sh/helm/v3/pkg/repo"
	"sigs.k8s.io/yaml"

	"github.com/styrmin/styrmin/drivers"
	"github.com/styrmin/styrmin/drivers/bundled"
	"github.com/styrmin/styrmin/release"
)

// HelloWeb is the bundled hello-web chart and its .tgz archive.
func HelloWeb(t testing.TB) (*chart.Chart, []byte) {
	t.Helper()
	b, err := drivers.LoadBundle(t.Context(), bundled.Bundles(), "hello-web")
	require.NoError(t, err)
	file, err := chartutil.Save(b.Chart, t.TempDir())
	require.NoError(t, err)
	archive, err := os.ReadFile(file)
	require.NoError(t, err)
	return b.Chart, archive
}

// HelloWebPath is where ChartRepository serves the archive, relative to the repository.
const HelloWebPath = "charts/hello-web-1.0.0.tgz"

// ChartRepository serves an https chart repository at /stable, closed when
// the test ends: index.yaml lists chart c at chartURL (relative to /stable/,
// such as HelloWebPath, or absolute), archive is at /stable/HelloWebPath, and
// each path of redirects answers 302 Found to its target. A slow repository
// answers nothing until the request is given up.
func ChartRepository(t testing.TB, c *chart.Chart, archive []byte, chartURL string, redirects map[string]string, slow bool) *httptest.Server {
	t.Helper()
	// MustAdd sanitizes the metadata it is given in place: a copy keeps c
	// safe to share between parallel tests.
	var metadata chart.Metadata
	data, err := json.Marshal(c.Metadata)
	require.NoError(t, err)
	require.NoError(t, json.Unmarshal(data, &metadata))
	index := repo.NewIndexFile()
	require.NoError(t, index.MustAdd(&metadata, chartURL, "", digest.FromBytes(archive).Encoded()))
	indexYAML, err := yaml.Marshal(index)
	require.NoError(t, err)
	srv := httptest.NewTLSServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if slow {
			<-r.Context().Done()
			return
		}
		if target, ok := redirects[r.URL.Path]; ok {
			http.Redirect(w, r, target, http.StatusFound)
			return
		}
		switch r.URL.Path {
		case "/stable/index.yaml":
			w.Write(indexYAML)
		case "/stable/" + HelloWebPath:
			w.Write(archive)
		default:
			http.NotFound(w, r)
		}
	}))
	t.Cleanup(srv.Close)
	return srv
}

// Trusting is a chart fetcher that trusts the test servers' certificate, and
// the allowed hosts that let it reach srv, which listens on loopback.
func Trusting(srv *httptest.Server) (release.ChartFetcher, release.ChartHosts) {
	roots := x509.NewCertPool()
	roots.AddCert(srv.Certificate())
	return release.ChartFetcher{RootCAs: roots}, release.ChartHosts{srv.Listener.Addr().String()}
}
