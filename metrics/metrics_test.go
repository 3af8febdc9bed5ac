package metrics_test

import (
	"context"
	"io"
	"log/slog"
	"net"
	"net/http"
	"strings"
	"testing"

	dto "github.com/prometheus/client_model/go"
	"github.com/prometheus/common/expfmt"
	"github.com/prometheus/common/model"
	"github.com/stretchr/testify/require"

	"github.com/styrmin/styrmin/metrics"
	"github.com/styrmin/styrmin/version"
)

// serveMetrics serves m on a loopback address until the test ends and
// returns its /metrics URL.
func serveMetrics(t *testing.T, m *metrics.Metrics) string {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- m.Serve(ctx, ln, slog.New(slog.NewTextHandler(io.Discard, nil))) }()
	t.Cleanup(func() {
		cancel()
		require.NoError(t, <-done)
	})
	return "http://" + ln.Addr().String() + "/metrics"
}

// scrape reads the families at the /metrics URL, as Prometheus does.
func scrape(t *testing.T, metricsURL string) map[string]*dto.MetricFamily {
	t.Helper()
	resp, err := http.Get(metricsURL)
	require.NoError(t, err)
	defer resp.Body.Close()
	require.Equal(t, http.StatusOK, resp.StatusCode)
	parser := expfmt.NewTextParser(model.UTF8Validation)
	families, err := parser.TextToMetricFamilies(resp.Body)
	require.NoError(t, err)
	return families
}

// value is the value of the family's series with exactly labels (counter,
// gauge, or a histogram's count); ok is false when there is none.
func value(families map[string]*dto.MetricFamily, name string, labels map[string]string) (v float64, ok bool) {
	f := families[name]
	if f == nil {
		return 0, false
	}
	for _, m := range f.GetMetric() {
		got := map[string]string{}
		for _, l := range m.GetLabel() {
			got[l.GetName()] = l.GetValue()
		}
		if len(got) != len(labels) {
			continue
		}
		match := true
		for k, want := range labels {
			match = match && got[k] == want
		}
		if !match {
			continue
		}
		switch {
		case m.Counter != nil:
			return m.GetCounter().GetValue(), true
		case m.Gauge != nil:
			return m.GetGauge().GetValue(), true
		case m.Histogram != nil:
			return float64(m.GetHistogram().GetSampleCount()), true
		}
	}
	return 0, false
}

// TestServeAnswersTheProcessProbes: the metrics server answers /healthz at
// once and /readyz only after SetReady (the worker's probes, which has no
// other listener), and nothing but those and /metrics.
func TestServeAnswersTheProcessProbes(t *testing.T) {
	t.Parallel()
	m := metrics.New()
	base := strings.TrimSuffix(serveMetrics(t, m), "/metrics")
	status := func(path string) int {
		t.Helper()
		resp, err := http.Get(base + path)
		require.NoError(t, err)
		require.NoError(t, resp.Body.Close())
		return resp.StatusCode
	}
	require.Equal(t, http.StatusOK, status("/healthz"))
	require.Equal(t, http.StatusServiceUnavailable, status("/readyz"), "not ready before SetReady")
	m.SetReady()
	require.Equal(t, http.StatusOK, status("/readyz"))
	require.Equal(t, http.StatusNotFound, status("/signin"))
}

// TestBuildInfoNamesTheRunningVersion: styrmin_build_info is 1, labelled
// with the version, revision and Go version of the running build.
func TestBuildInfoNamesTheRunningVersion(t *testing.T) {
	t.Parallel()
	b := version.Get()
	families := scrape(t, serveMetrics(t, metrics.New()))
	v, ok := value(families, "styrmin_build_info", map[string]string{"version": b.Version, "revision": b.Revision, "goversion": b.GoVersion})
	require.True(t, ok, "styrmin_build_info labelled with %+v", b)
	require.Equal(t, 1.0, v)
}
