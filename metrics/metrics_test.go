package metrics_test

import (
	"context"
	"io"
	"log/slog"
	"net"
	"net/http"
	"net/http/cookiejar"
	"net/url"
	"strings"
	"testing"

	"github.com/PuerkitoBio/goquery"
	dto "github.com/prometheus/client_model/go"
	"github.com/prometheus/common/expfmt"
	"github.com/prometheus/common/model"
	"github.com/stretchr/testify/require"

	"github.com/styrmin/styrmin/app/apptest"
	"github.com/styrmin/styrmin/db"
	"github.com/styrmin/styrmin/executor/executortest"
	"github.com/styrmin/styrmin/handlers/handlerstest"
	"github.com/styrmin/styrmin/metrics"
	"github.com/styrmin/styrmin/views"
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

// TestScrapeAfterADeployment runs a real server and worker on PostgreSQL,
// queues an install (which fails: the environment has no cluster), refuses
// a sign-in and asks for a page that does not exist, then scrapes /metrics
// as Prometheus does and checks the series and their labels.
func TestScrapeAfterADeployment(t *testing.T) {
	t.Parallel()
	m := metrics.New()
	metricsURL := serveMetrics(t, m)
	env := apptest.New(t, apptest.Options{Work: true, Metrics: m, Logger: slog.New(slog.NewTextHandler(io.Discard, nil))})
	env.Start(t)
	ctx := context.Background()

	before := scrape(t, metricsURL)
	queued, ok := value(before, "styrmin_tasks_queued", nil)
	require.True(t, ok, "the queue's depth is exported")
	require.Zero(t, queued)

	op := handlerstest.HelloInstall("shop")
	op.By = "olga"
	q, err := env.Deployments.Queue(ctx, op)
	require.NoError(t, err)
	task := executortest.WaitRow(t, db.New(env.Pool), q.TaskID)
	require.Equal(t, db.TaskStatus("failed"), task.Status, "with no cluster the install fails: %s", task.Message)

	jar, err := cookiejar.New(nil)
	require.NoError(t, err)
	client := &http.Client{Jar: jar, CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}
	page, err := client.Get(env.URL + "/signin")
	require.NoError(t, err)
	doc, err := goquery.NewDocumentFromReader(page.Body)
	page.Body.Close()
	require.NoError(t, err)
	csrf := doc.Find(`meta[name="csrf-token"]`).AttrOr("content", "")
	require.NotEmpty(t, csrf)
	refused, err := client.PostForm(env.URL+"/signin", url.Values{"username": {"nobody"}, "password": {"guess"}, views.CSRFField: {csrf}})
	require.NoError(t, err)
	refused.Body.Close()
	require.Equal(t, http.StatusUnauthorized, refused.StatusCode)
	missing, err := client.Get(env.URL + "/no/such/page-7f3a")
	require.NoError(t, err)
	missing.Body.Close()
	require.Equal(t, http.StatusNotFound, missing.StatusCode)

	families := scrape(t, metricsURL)
	for _, c := range []struct {
		name   string
		labels map[string]string
		want   float64
	}{
		{"styrmin_tasks_started_total", map[string]string{"kind": "install"}, 1},
		{"styrmin_tasks_ended_total", map[string]string{"kind": "install", "outcome": "failed"}, 1},
		{"styrmin_task_duration_seconds", map[string]string{"kind": "install", "outcome": "failed"}, 1},
		{"styrmin_tasks_queued", nil, 0},
		{"styrmin_tasks_queued_oldest_age_seconds", nil, 0},
		{"styrmin_signin_refusals_total", map[string]string{"reason": "failed"}, 1},
		{"styrmin_http_requests_total", map[string]string{"route": "/signin", "method": "GET", "status": "200"}, 1},
		{"styrmin_http_requests_total", map[string]string{"route": "/signin", "method": "POST", "status": "401"}, 1},
		{"styrmin_http_requests_total", map[string]string{"route": "unmatched", "method": "GET", "status": "404"}, 1},
		{"styrmin_http_request_duration_seconds", map[string]string{"route": "/signin", "method": "POST"}, 1},
	} {
		got, ok := value(families, c.name, c.labels)
		require.True(t, ok, "%s%v is exported", c.name, c.labels)
		require.Equal(t, c.want, got, "%s%v", c.name, c.labels)
	}
	for _, standard := range []string{"go_goroutines", "go_memstats_heap_alloc_bytes", "process_resident_memory_bytes"} {
		require.Contains(t, families, standard)
	}
	for name, f := range families {
		for _, series := range f.GetMetric() {
			for _, l := range series.GetLabel() {
				require.NotContains(t, l.GetValue(), "7f3a", "%s: no label carries a path a client sent", name)
				require.NotContains(t, l.GetValue(), "nobody", "%s: no label carries a username", name)
			}
		}
	}
	require.False(t, strings.HasPrefix(metricsURL, env.URL), "the metrics have their own address")
}
