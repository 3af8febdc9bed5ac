package release

import (
	"bytes"
	"context"
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

	"helm.sh/helm/v3/pkg/chart"
	"helm.sh/helm/v3/pkg/chart/loader"
	"helm.sh/helm/v3/pkg/getter"
	"helm.sh/helm/v3/pkg/registry"
	"helm.sh/helm/v3/pkg/repo"

	styrmin "github.com/styrmin/styrmin"
	"github.com/styrmin/styrmin/drivers"
)

// Limits on downloading a remote chart, when a ChartLoader gives none.
const (
	DefaultChartMaxBytes = 20 << 20
	DefaultChartTimeout  = 2 * time.Minute
)

// ChartLoader gives the chart a driver bundle names: the bundled one, or one
// downloaded from an OCI registry or an https chart repository.
type ChartLoader struct {
	// HTTPClient downloads remote charts; http.DefaultClient's transport when nil.
	HTTPClient *http.Client
	// MaxBytes bounds everything one Load downloads (index, manifests, archive);
	// DefaultChartMaxBytes when zero.
	MaxBytes int64
	// Timeout bounds one Load's downloads; DefaultChartTimeout when zero.
	Timeout time.Duration
}

// Load returns the chart of b's spec.helm.main: b.Chart for a chart inside the
// bundle; otherwise the chart of the given exact version pulled from the OCI
// reference, or found in the https repository's index.yaml and downloaded.
// Nothing is cached: the index goes to a temporary folder removed on return.
// Errors: EINVALID when the chart is missing, too large, or not the name and
// version the spec gives; EUNAVAILABLE when the source fails or is too slow.
func (l ChartLoader) Load(ctx context.Context, b *drivers.Bundle) (*chart.Chart, error) {
	ref := b.Driver.Spec.Helm.Main
	var (
		c   *chart.Chart
		err error
	)
	switch ref.Source() {
	case drivers.ChartInBundle:
		if b.Chart == nil {
			return nil, styrmin.Errorf(styrmin.EINVALID, "Driver %s has no chart at %s.", b.Driver.Metadata.Name, ref.Location)
		}
		return b.Chart, nil
	case drivers.ChartOCI:
		c, err = l.download(ctx, ref, l.pullOCI)
	case drivers.ChartRepository:
		c, err = l.download(ctx, ref, l.fetchFromRepository)
	default:
		return nil, styrmin.Errorf(styrmin.EINVALID, "Chart location %q is not a bundle path, an oci:// reference or an https:// repository.", ref.Location)
	}
	if err != nil {
		return nil, fmt.Errorf("release: load chart %s: %w", ref.Location, err)
	}
	return c, nil
}

// download runs fetch with a budgeted HTTP client and checks the chart it gives.
func (l ChartLoader) download(ctx context.Context, ref drivers.ChartRef, fetch func(*http.Client, drivers.ChartRef) ([]byte, error)) (*chart.Chart, error) {
	ctx, cancel := context.WithTimeout(ctx, orDefault(l.Timeout, DefaultChartTimeout))
	defer cancel()
	budget := &budgetTransport{base: http.DefaultTransport, ctx: ctx, left: orDefault(l.MaxBytes, DefaultChartMaxBytes)}
	client := &http.Client{Transport: budget}
	if l.HTTPClient != nil {
		client.CheckRedirect, client.Jar = l.HTTPClient.CheckRedirect, l.HTTPClient.Jar
		if l.HTTPClient.Transport != nil {
			budget.base = l.HTTPClient.Transport
		}
	}
	data, err := fetch(client, ref)
	switch {
	case budget.exceeded():
		return nil, &styrmin.Error{Code: styrmin.EINVALID, Message: fmt.Sprintf("Chart %s is larger than %d KiB.", ref.Location, budget.max()>>10), Err: err}
	case ctx.Err() != nil:
		return nil, &styrmin.Error{Code: styrmin.EUNAVAILABLE, Message: fmt.Sprintf("Chart %s did not download in time.", ref.Location), Err: errors.Join(err, ctx.Err())}
	case err != nil:
		return nil, &styrmin.Error{Code: styrmin.EUNAVAILABLE, Message: fmt.Sprintf("Chart %s %s cannot be downloaded.", ref.Location, ref.Version), Err: err}
	}
	c, err := loader.LoadArchive(bytes.NewReader(data))
	if err != nil {
		return nil, &styrmin.Error{Code: styrmin.EINVALID, Message: fmt.Sprintf("Chart %s is not a valid chart archive.", ref.Location), Err: err}
	}
	if want := chartName(ref); c.Metadata.Name != want || c.Metadata.Version != ref.Version {
		return nil, styrmin.Errorf(styrmin.EINVALID, "Chart %s is %s %s, not %s %s.", ref.Location, c.Metadata.Name, c.Metadata.Version, want, ref.Version)
	}
	return c, nil
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
func (l ChartLoader) pullOCI(client *http.Client, ref drivers.ChartRef) ([]byte, error) {
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
func (l ChartLoader) fetchFromRepository(client *http.Client, ref drivers.ChartRef) ([]byte, error) {
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
