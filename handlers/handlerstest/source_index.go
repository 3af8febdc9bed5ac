package handlerstest

import (
	"crypto/sha256"
	"crypto/x509"
	"encoding/hex"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"

	"github.com/stretchr/testify/require"
	"sigs.k8s.io/yaml"

	"github.com/styrmin/styrmin/app/apptest"
	"github.com/styrmin/styrmin/oci"
	"github.com/styrmin/styrmin/release"
	"github.com/styrmin/styrmin/source"
)

// IndexSite is an https site on loopback publishing an index source: an
// index.yaml listing archives of the bundled hello-web, as a driver author
// publishes them with `styrmin driver package` and `sign-blob`.
type IndexSite struct {
	// URL is https://HOST/drivers/index.yaml, an index source's address.
	URL string
	// Fetcher trusts the site's certificate.
	Fetcher release.ChartFetcher
	host    string
	files   *Files

	mu      sync.Mutex
	entries []source.IndexEntry
}

// Files is an http.Handler serving files by path, as a static web site does.
type Files struct {
	mu    sync.Mutex
	files map[string][]byte
}

// NewFiles returns Files serving nothing yet.
func NewFiles() *Files { return &Files{files: map[string][]byte{}} }

// ServeHTTP serves the file at the request's path, or 404.
func (f *Files) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	f.mu.Lock()
	data, ok := f.files[r.URL.Path]
	f.mu.Unlock()
	if !ok {
		http.NotFound(w, r)
		return
	}
	_, _ = w.Write(data)
}

// Put publishes data at path.
func (f *Files) Put(path string, data []byte) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.files[path] = data
}

// NewIndexSite starts an IndexSite, listing nothing yet, that stops when
// the test ends.
func NewIndexSite(t *testing.T) *IndexSite {
	t.Helper()
	s := &IndexSite{files: NewFiles()}
	srv := httptest.NewTLSServer(s.files)
	t.Cleanup(srv.Close)
	s.host = strings.TrimPrefix(srv.URL, "https://")
	s.URL = srv.URL + "/drivers/index.yaml"
	s.Fetcher.RootCAs = x509.NewCertPool()
	s.Fetcher.RootCAs.AddCert(srv.Certificate())
	s.files.Put("/drivers/index.yaml", []byte("apiVersion: v1\nentries: {}\n"))
	return s
}

// Publish lists hello-web version in the index, its archive beside it,
// signed with kp (as `styrmin driver sign-blob` signs) unless kp is nil.
func (s *IndexSite) Publish(t *testing.T, version string, kp *oci.KeyPair) {
	t.Helper()
	_, archive := pack(t, version)
	name := "hello-web-" + version + ".tar.gz"
	s.files.Put("/drivers/"+name, archive)
	if kp != nil {
		signer, err := oci.LoadSigner(kp.Private, nil)
		require.NoError(t, err)
		sig, err := oci.SignBlob(signer, archive)
		require.NoError(t, err)
		s.files.Put("/drivers/"+name+".sig", sig)
	}
	sum := sha256.Sum256(archive)
	s.mu.Lock()
	s.entries = append(s.entries, source.IndexEntry{Version: version, Digest: "sha256:" + hex.EncodeToString(sum[:]), URLs: []string{name}})
	index, err := yaml.Marshal(source.Index{APIVersion: source.IndexAPIVersion, Entries: map[string][]source.IndexEntry{"hello-web": s.entries}})
	s.mu.Unlock()
	require.NoError(t, err)
	s.files.Put("/drivers/index.yaml", index)
}

// SyncSources does what a worker does for env's due sources, with the
// site's host allowed and its certificate trusted.
func (s *IndexSite) SyncSources(t *testing.T, env *apptest.Env) {
	t.Helper()
	syncSources(t, env, s.host, s.Fetcher)
}
