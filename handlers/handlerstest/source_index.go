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
	// Host is the site's HOST:PORT.
	Host string
	// Fetcher trusts the site's certificate.
	Fetcher release.ChartFetcher
	// Files are what the site serves: an index and archives beside it.
	*Files

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
	s := &IndexSite{Files: NewFiles()}
	srv := httptest.NewTLSServer(s.Files)
	t.Cleanup(srv.Close)
	s.Host = strings.TrimPrefix(srv.URL, "https://")
	s.URL = srv.URL + "/drivers/index.yaml"
	s.Fetcher.RootCAs = x509.NewCertPool()
	s.Fetcher.RootCAs.AddCert(srv.Certificate())
	s.Put("/drivers/index.yaml", []byte("apiVersion: v1\nentries: {}\n"))
	return s
}

// Publish lists hello-web version in the index, its archive beside it,
// signed with kp (as `styrmin driver sign-blob` signs) unless kp is nil.
func (s *IndexSite) Publish(t *testing.T, version string, kp *oci.KeyPair) {
	t.Helper()
	archive := Pack(t, version)
	var sig []byte
	if kp != nil {
		sig = SignBlob(t, archive, kp)
	}
	s.PublishArchive(t, version, archive, sig)
}

// PublishArchive lists archive as hello-web version in the index, with its
// digest, the archive beside it and its signature sig unless sig is nil:
// whatever the archive holds, as a publisher's mistake (or an attacker) can.
func (s *IndexSite) PublishArchive(t *testing.T, version string, archive, sig []byte) {
	t.Helper()
	name := "hello-web-" + version + ".tar.gz"
	s.Put("/drivers/"+name, archive)
	if sig != nil {
		s.Put("/drivers/"+name+".sig", sig)
	}
	s.List(t, source.IndexEntry{Version: version, Digest: ArchiveDigest(archive), URLs: []string{name}})
}

// List adds entry to hello-web's entries in the index, as written, its
// archive where the site serves it or not.
func (s *IndexSite) List(t *testing.T, entry source.IndexEntry) {
	t.Helper()
	s.mu.Lock()
	s.entries = append(s.entries, entry)
	index, err := yaml.Marshal(source.Index{APIVersion: source.IndexAPIVersion, Entries: map[string][]source.IndexEntry{"hello-web": s.entries}})
	s.mu.Unlock()
	require.NoError(t, err)
	s.Put("/drivers/index.yaml", index)
}

// SignBlob is archive's signature by kp, as `styrmin driver sign-blob` writes it.
func SignBlob(t *testing.T, archive []byte, kp *oci.KeyPair) []byte {
	t.Helper()
	signer, err := oci.LoadSigner(kp.Private, nil)
	require.NoError(t, err)
	sig, err := oci.SignBlob(signer, archive)
	require.NoError(t, err)
	return sig
}

// ArchiveDigest is archive's digest as an index gives it: sha256: and hex.
func ArchiveDigest(archive []byte) string {
	sum := sha256.Sum256(archive)
	return "sha256:" + hex.EncodeToString(sum[:])
}

// SyncSources does what a worker does for env's due sources, with the
// site's host allowed and its certificate trusted.
func (s *IndexSite) SyncSources(t *testing.T, env *apptest.Env) {
	t.Helper()
	syncSources(t, env, s.Host, s.Fetcher)
}
