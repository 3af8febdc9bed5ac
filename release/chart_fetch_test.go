package release_test

import (
	"context"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
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
	"helm.sh/helm/v3/pkg/chartutil"
	"helm.sh/helm/v3/pkg/registry"
	"helm.sh/helm/v3/pkg/repo"
	"sigs.k8s.io/yaml"

	styrmin "github.com/styrmin/styrmin"
	"github.com/styrmin/styrmin/drivers"
	"github.com/styrmin/styrmin/release"
)

// helloWeb is the bundled hello-web chart, packaged as a .tgz archive.
func helloWeb(t *testing.T) (*chart.Chart, []byte) {
	t.Helper()
	c, err := loader.Load(filepath.Join("..", "drivers", "bundled", "hello-web", "chart"))
	require.NoError(t, err)
	file, err := chartutil.Save(c, t.TempDir())
	require.NoError(t, err)
	archive, err := os.ReadFile(file)
	require.NoError(t, err)
	return c, archive
}

// chartRepository serves an https chart repository: index.yaml listing the
// chart with a relative URL, and the archive. A slow server answers nothing
// until the request is given up.
func chartRepository(t *testing.T, c *chart.Chart, archive []byte, slow bool) *httptest.Server {
	t.Helper()
	index := repo.NewIndexFile()
	require.NoError(t, index.MustAdd(c.Metadata, "charts/hello-web-1.0.0.tgz", "", digest.FromBytes(archive).Encoded()))
	indexYAML, err := yaml.Marshal(index)
	require.NoError(t, err)
	srv := httptest.NewTLSServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if slow {
			<-r.Context().Done()
			return
		}
		switch r.URL.Path {
		case "/stable/index.yaml":
			w.Write(indexYAML)
		case "/stable/charts/hello-web-1.0.0.tgz":
			w.Write(archive)
		default:
			http.NotFound(w, r)
		}
	}))
	t.Cleanup(srv.Close)
	return srv
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

// remoteBundle is a bundle whose chart is at location.
func remoteBundle(location, name, version string) *drivers.Bundle {
	d := &drivers.Driver{}
	d.Metadata.Name = "remote"
	d.Spec.Helm.Main = drivers.ChartRef{Location: location, Chart: name, Version: version}
	return &drivers.Bundle{Driver: d}
}

func TestLoadChart(t *testing.T) {
	t.Parallel()
	hello, archive := helloWeb(t)
	repoServer := chartRepository(t, hello, archive, false)
	slowServer := chartRepository(t, hello, archive, true)
	oci := ociRegistry(t, hello, archive)
	ociHost := strings.TrimPrefix(oci.URL, "https://")

	tests := []struct {
		name   string
		loader release.ChartLoader
		bundle *drivers.Bundle
		code   string // "" for success
		msg    string
	}{
		{"https repository", release.ChartLoader{HTTPClient: repoServer.Client()},
			remoteBundle(repoServer.URL+"/stable", "hello-web", "1.0.0"), "", ""},
		{"https repository without that version", release.ChartLoader{HTTPClient: repoServer.Client()},
			remoteBundle(repoServer.URL+"/stable", "hello-web", "9.9.9"), styrmin.EUNAVAILABLE, "cannot be downloaded"},
		{"https repository without index", release.ChartLoader{HTTPClient: repoServer.Client()},
			remoteBundle(repoServer.URL+"/nothing", "hello-web", "1.0.0"), styrmin.EUNAVAILABLE, "cannot be downloaded"},
		{"download past its byte budget", release.ChartLoader{HTTPClient: repoServer.Client(), MaxBytes: 1024},
			remoteBundle(repoServer.URL+"/stable", "hello-web", "1.0.0"), styrmin.EINVALID, "is larger than 1 KiB"},
		{"download past its time", release.ChartLoader{HTTPClient: slowServer.Client(), Timeout: 200 * time.Millisecond},
			remoteBundle(slowServer.URL+"/stable", "hello-web", "1.0.0"), styrmin.EUNAVAILABLE, "did not download in time"},
		{"oci registry", release.ChartLoader{HTTPClient: oci.Client()},
			remoteBundle("oci://"+ociHost+"/charts/hello-web", "", "1.0.0"), "", ""},
		{"oci registry without that version", release.ChartLoader{HTTPClient: oci.Client()},
			remoteBundle("oci://"+ociHost+"/charts/hello-web", "", "2.0.0"), styrmin.EUNAVAILABLE, "cannot be downloaded"},
		{"oci chart of another name", release.ChartLoader{HTTPClient: oci.Client()},
			remoteBundle("oci://"+ociHost+"/charts/hello-web", "other", "1.0.0"), styrmin.EINVALID, "is hello-web 1.0.0, not other 1.0.0"},
		{"bundle without its chart", release.ChartLoader{},
			remoteBundle("./chart", "", "1.0.0"), styrmin.EINVALID, "Driver remote has no chart at ./chart."},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			c, err := tt.loader.Load(context.Background(), tt.bundle)
			if tt.code != "" {
				require.Error(t, err)
				require.Equal(t, tt.code, styrmin.ErrorCode(err), "%v", err)
				require.Contains(t, styrmin.ErrorMessage(err), tt.msg)
				return
			}
			require.NoError(t, err)
			require.Equal(t, "hello-web", c.Metadata.Name)
			require.Equal(t, "1.0.0", c.Metadata.Version)
			require.Equal(t, hello.Values, c.Values)
			require.Len(t, c.Templates, len(hello.Templates))
		})
	}
}

func TestLoadChartGivesTheBundledChart(t *testing.T) {
	t.Parallel()
	b, err := drivers.LoadBundle(t.Context(), os.DirFS(filepath.Join("..", "drivers", "bundled")), "hello-web")
	require.NoError(t, err)
	c, err := release.ChartLoader{}.Load(context.Background(), b)
	require.NoError(t, err)
	require.Same(t, b.Chart, c)
}
