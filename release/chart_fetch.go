package release

import (
	"bytes"
	"context"
	"crypto/sha256"
	"crypto/tls"
	"crypto/x509"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"net/http"
	"os"
	"path"
	"path/filepath"
	"strings"
	"sync"
	"time"

	"helm.sh/helm/v3/pkg/chart/loader"
	"helm.sh/helm/v3/pkg/getter"
	"helm.sh/helm/v3/pkg/registry"
	"helm.sh/helm/v3/pkg/repo"

	styrmin "github.com/styrmin/styrmin"
	"github.com/styrmin/styrmin/drivers"
	"github.com/styrmin/styrmin/version"
)

// Limits on downloading a remote chart, when a ChartFetcher gives none.
const (
	DefaultChartMaxBytes = 20 << 20
	DefaultChartTimeout  = 2 * time.Minute
)

// ChartFetcher downloads the remote chart a driver names, from an OCI
// registry or an https chart repository, when the driver is imported. It
// speaks https only (also to what an index or a redirect points at), never
// uses a proxy, and connects to no address that is not public unless its
// host is allowed (see ChartHosts).
type ChartFetcher struct {
	// MaxBytes bounds everything one Fetch downloads (index, manifests, archive);
	// DefaultChartMaxBytes when zero.
	MaxBytes int64
	// Timeout bounds one Fetch's downloads; DefaultChartTimeout when zero.
	Timeout time.Duration
	// RootCAs verify the hosts' certificates; the system's when nil.
	RootCAs *x509.CertPool
}

// Fetch returns the archive of the chart ref names: the given exact version
// pulled from the OCI reference, or found in the https repository's
// index.yaml and downloaded. The archive must be a chart of the name and
// version ref gives, with ref.Digest when it gives one. allowed are the hosts
// that may resolve to addresses that are not public.
// Errors: EINVALID when the chart is missing, too large, not what ref says,
// or at a host or URL a download may not reach (the message says which and
// what to do); EUNAVAILABLE when the source fails or is too slow.
func (f ChartFetcher) Fetch(ctx context.Context, ref drivers.ChartRef, allowed ChartHosts) ([]byte, error) {
	var (
		data []byte
		err  error
	)
	switch ref.Source() {
	case drivers.ChartOCI:
		data, err = f.download(ctx, ref, allowed, pullOCI)
	case drivers.ChartRepository:
		data, err = f.download(ctx, ref, allowed, fetchFromRepository)
	default:
		return nil, styrmin.Errorf(styrmin.EINVALID, "Chart location %q is not an oci:// reference or an https:// repository.", ref.Location)
	}
	if err != nil {
		return nil, fmt.Errorf("release: fetch chart %s: %w", ref.Location, err)
	}
	return data, nil
}

// download runs fetch with a guarded, budgeted HTTP client (with Styrmin's
// User-Agent) and checks the archive it gives.
func (f ChartFetcher) download(ctx context.Context, ref drivers.ChartRef, allowed ChartHosts, fetch func(*http.Client, drivers.ChartRef) ([]byte, error)) ([]byte, error) {
	var data []byte
	err := f.Download(ctx, allowed, Download{What: "Chart " + ref.Location, Noun: "chart", Again: "import the driver again", Missing: fmt.Sprintf(
		"Chart %s %s cannot be downloaded: the registry or repository did not give it. Check the location and version, then import the driver again.",
		ref.Location, ref.Version)}, func(client *http.Client) (err error) {
		data, err = fetch(client, ref)
		return err
	})
	if err != nil {
		return nil, err
	}
	if err := checkArchive(ref, data); err != nil {
		return nil, err
	}
	return data, nil
}

// Download says what a download fetches, for its errors.
type Download struct {
	// What names it, as the start of a sentence: "Chart oci://...".
	What string
	// Noun is what it is, in the singular: "chart".
	Noun string
	// Again says what to do once an admin allowed the host: "import the driver again".
	Again string
	// Missing is the message when the source did not give it.
	Missing string
}

// Download runs get with an HTTP client under f's rules: https only, no
// proxy, no address that is not public unless its host is allowed, at most
// MaxBytes of bodies read, all within Timeout. A failure is returned in
// words for an admin (EINVALID: too large, refused host or URL; EUNAVAILABLE:
// too slow, or d.Missing), the network error kept in Err.
func (f ChartFetcher) Download(ctx context.Context, allowed ChartHosts, d Download, get func(*http.Client) error) error {
	ctx, cancel := context.WithTimeout(ctx, orDefault(f.Timeout, DefaultChartTimeout))
	defer cancel()
	budget := &budgetTransport{base: httpsOnly{base: f.transport(allowed)}, ctx: ctx, left: orDefault(f.MaxBytes, DefaultChartMaxBytes)}
	if err := get(&http.Client{Transport: version.Transport(budget)}); err != nil {
		return downloadFailure(ctx, d, budget, err)
	}
	return nil
}

// transport connects through guardedDial, without proxy, verifying
// certificates with f.RootCAs.
func (f ChartFetcher) transport(allowed ChartHosts) *http.Transport {
	return &http.Transport{
		DialContext:         guardedDial(allowed),
		TLSClientConfig:     &tls.Config{RootCAs: f.RootCAs, MinVersion: tls.VersionTLS12},
		TLSHandshakeTimeout: 10 * time.Second,
		ForceAttemptHTTP2:   true,
		DisableKeepAlives:   true,
	}
}

// downloadFailure says why a download failed, in words for an admin or
// importer: never the raw network error, which stays in Err for the log.
func downloadFailure(ctx context.Context, d Download, budget *budgetTransport, err error) error {
	var (
		refused  *AddressRefused
		notHTTPS *NotHTTPS
		coded    *styrmin.Error
	)
	switch {
	case budget.exceeded():
		return &styrmin.Error{Code: styrmin.EINVALID, Message: fmt.Sprintf("%s is larger than %d KiB.", d.What, budget.max()>>10), Err: err}
	case errors.As(err, &refused):
		return &styrmin.Error{Code: styrmin.EINVALID, Err: err, Message: fmt.Sprintf(
			"%s cannot be downloaded: the %s's host %s resolves to %s, which %s downloads do not reach. "+
				"If the host is trusted, an admin can allow it under Settings, Chart hosts, and then %s.",
			d.What, d.Noun, refused.Host, refused.Kind, d.Noun, d.Again)}
	case errors.As(err, &notHTTPS):
		return &styrmin.Error{Code: styrmin.EINVALID, Err: err, Message: fmt.Sprintf(
			"%s cannot be downloaded: it leads to %s, and %ss are downloaded over https only. "+
				"Publish the %s, its index and any redirect on https.", d.What, notHTTPS.URL, d.Noun, d.Noun)}
	case ctx.Err() != nil:
		return &styrmin.Error{Code: styrmin.EUNAVAILABLE, Message: fmt.Sprintf("%s did not download in time.", d.What), Err: errors.Join(err, ctx.Err())}
	case errors.As(err, &coded):
		return err
	}
	return &styrmin.Error{Code: styrmin.EUNAVAILABLE, Err: err, Message: d.Missing}
}

// checkArchive checks that data is a chart archive of the name, version and
// digest ref gives.
func checkArchive(ref drivers.ChartRef, data []byte) error {
	if ref.Digest != "" {
		sum := sha256.Sum256(data)
		if got := "sha256:" + hex.EncodeToString(sum[:]); got != ref.Digest {
			return styrmin.Errorf(styrmin.EINVALID,
				"Chart %s %s has digest %s, not %s as spec.helm.main.digest says: the chart changed at its source or the digest is wrong. "+
					"Check the chart, then correct the digest and raise spec.version.", ref.Location, ref.Version, got, ref.Digest)
		}
	}
	c, err := loader.LoadArchive(bytes.NewReader(data))
	if err != nil {
		return &styrmin.Error{Code: styrmin.EINVALID, Message: fmt.Sprintf("Chart %s is not a valid chart archive.", ref.Location), Err: err}
	}
	if want := chartName(ref); c.Metadata.Name != want || c.Metadata.Version != ref.Version {
		return styrmin.Errorf(styrmin.EINVALID, "Chart %s is %s %s, not %s %s.", ref.Location, c.Metadata.Name, c.Metadata.Version, want, ref.Version)
	}
	return nil
}

// chartName is the name the chart of ref must have: chart when given, else the
// last element of the OCI reference.
func chartName(ref drivers.ChartRef) string {
	if ref.Chart != "" {
		return ref.Chart
	}
	return path.Base(strings.TrimSuffix(ref.Location, "/"))
}

// pullOCI pulls the chart archive of ref.Version from an OCI registry.
func pullOCI(client *http.Client, ref drivers.ChartRef) ([]byte, error) {
	dir, err := os.MkdirTemp("", "styrmin-oci-*")
	if err != nil {
		return nil, err
	}
	defer os.RemoveAll(dir)
	reg, err := registry.NewClient(registry.ClientOptHTTPClient(client), registry.ClientOptCredentialsFile(filepath.Join(dir, "config.json")))
	if err != nil {
		return nil, err
	}
	res, err := reg.Pull(strings.TrimPrefix(ref.Location, "oci://")+":"+ref.Version, registry.PullOptWithChart(true))
	if err != nil {
		return nil, err
	}
	return res.Chart.Data, nil
}

// fetchFromRepository finds ref's chart and version in the https repository's
// index.yaml (kept in a temporary folder) and downloads its archive.
func fetchFromRepository(client *http.Client, ref drivers.ChartRef) ([]byte, error) {
	dir, err := os.MkdirTemp("", "styrmin-repo-*")
	if err != nil {
		return nil, err
	}
	defer os.RemoveAll(dir)
	get := httpsGetter{client: client}
	providers := getter.Providers{{Schemes: []string{"https"}, New: func(...getter.Option) (getter.Getter, error) { return get, nil }}}
	r, err := repo.NewChartRepository(&repo.Entry{Name: "driver", URL: ref.Location}, providers)
	if err != nil {
		return nil, err
	}
	r.CachePath = dir
	indexFile, err := r.DownloadIndexFile()
	if err != nil {
		return nil, fmt.Errorf("index: %w", err)
	}
	index, err := repo.LoadIndexFile(indexFile)
	if err != nil {
		return nil, fmt.Errorf("index: %w", err)
	}
	version, err := index.Get(ref.Chart, ref.Version)
	if err != nil || len(version.URLs) == 0 {
		return nil, fmt.Errorf("the repository's index has no chart %s version %s", ref.Chart, ref.Version)
	}
	u, err := repo.ResolveReferenceURL(ref.Location, version.URLs[0])
	if err != nil {
		return nil, err
	}
	data, err := get.Get(u)
	if err != nil {
		return nil, err
	}
	return data.Bytes(), nil
}

// httpsGetter is Helm's getter.Getter over a given http.Client, so that the
// download budget applies to what Helm's repo package fetches.
type httpsGetter struct{ client *http.Client }

// Get downloads href; anything but 200 OK is an error.
func (g httpsGetter) Get(href string, _ ...getter.Option) (*bytes.Buffer, error) {
	resp, err := g.client.Get(href)
	if err != nil {
		return nil, err
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		return nil, fmt.Errorf("GET %s: %s", href, resp.Status)
	}
	var buf bytes.Buffer
	if _, err := io.Copy(&buf, resp.Body); err != nil {
		return nil, fmt.Errorf("GET %s: %w", href, err)
	}
	return &buf, nil
}

// errBudget means a download went past its byte budget.
var errBudget = errors.New("download budget exceeded")

// budgetTransport runs every request under one context and fails response
// bodies once, together, they exceed a number of bytes.
type budgetTransport struct {
	base http.RoundTripper
	ctx  context.Context

	mu        sync.Mutex
	left, got int64
}

// RoundTrip sends req under the transport's context and counts its body.
func (t *budgetTransport) RoundTrip(req *http.Request) (*http.Response, error) {
	resp, err := t.base.RoundTrip(req.WithContext(t.ctx))
	if err != nil {
		return nil, err
	}
	resp.Body = &budgetBody{ReadCloser: resp.Body, t: t}
	return resp, nil
}

// spend takes n bytes from the budget and reports whether it still holds.
func (t *budgetTransport) spend(n int) bool {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.left -= int64(n)
	t.got += int64(n)
	return t.left >= 0
}

// exceeded reports whether the bodies read so far went past the budget.
func (t *budgetTransport) exceeded() bool {
	t.mu.Lock()
	defer t.mu.Unlock()
	return t.left < 0
}

// max is the budget the transport started with.
func (t *budgetTransport) max() int64 {
	t.mu.Lock()
	defer t.mu.Unlock()
	return t.left + t.got
}

// budgetBody is a response body that spends its transport's budget.
type budgetBody struct {
	io.ReadCloser
	t *budgetTransport
}

// Read reads and fails with errBudget once the budget is spent.
func (b *budgetBody) Read(p []byte) (int, error) {
	n, err := b.ReadCloser.Read(p)
	if !b.t.spend(n) {
		return n, errBudget
	}
	return n, err
}

// orDefault is v, or def when v is zero or less.
func orDefault[T int64 | time.Duration](v, def T) T {
	if v <= 0 {
		return def
	}
	return v
}
