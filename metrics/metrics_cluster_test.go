package metrics_test

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"net/http/cookiejar"
	"net/url"
	"regexp"
	"strings"
	"testing"
	"time"

	dto "github.com/prometheus/client_model/go"
	"github.com/stretchr/testify/require"

	"github.com/styrmin/styrmin/app/apptest"
	"github.com/styrmin/styrmin/auth"
	"github.com/styrmin/styrmin/db"
	"github.com/styrmin/styrmin/devcluster/kubetest"
	"github.com/styrmin/styrmin/executor/executortest"
	"github.com/styrmin/styrmin/handlers/handlerstest"
	"github.com/styrmin/styrmin/metrics"
	"github.com/styrmin/styrmin/views"
)

// scrapeUntil scrapes until ok holds of the families, within executortest.Timeout.
func scrapeUntil(t *testing.T, metricsURL, what string, ok func(map[string]*dto.MetricFamily) bool) map[string]*dto.MetricFamily {
	t.Helper()
	end := time.Now().Add(executortest.Timeout)
	for {
		families := scrape(t, metricsURL)
		if ok(families) {
			return families
		}
		if time.Now().After(end) {
			t.Fatalf("waited %s for the scrape to show %s", executortest.Timeout, what)
		}
		time.Sleep(200 * time.Millisecond)
	}
}

// pathWithID finds a label value that is a path with a number in it: a
// route pattern has none (":id" stands for it).
var pathWithID = regexp.MustCompile(`/\d+(/|$)`)

// TestScrapeAfterADeploymentOnTheCluster runs a real server and worker on
// PostgreSQL with the local cluster and actions, installs Hello Web through
// the REST API (its post-install smoke test runs a Kubernetes Job), shows
// its pages twice, refuses a sign-in and asks for a page that does not
// exist, then scrapes /metrics as Prometheus does and checks the series:
// the task by kind and outcome with its duration, HTTP requests by route
// pattern (never a path, a name or an id), the action and its Job, River's
// jobs, the queue, and the caches' hits.
func TestScrapeAfterADeploymentOnTheCluster(t *testing.T) {
	t.Parallel()
	kubeconfig := kubetest.Kubeconfig(t)
	m := metrics.New()
	metricsURL := serveMetrics(t, m)
	env := apptest.New(t, apptest.Options{Kubeconfig: kubeconfig, Work: true, Actions: true, Metrics: m,
		Logger: slog.New(slog.NewTextHandler(io.Discard, nil))})
	env.Start(t)
	ctx := context.Background()
	name := kubetest.UniqueName("metrics")
	t.Cleanup(func() { apptest.Uninstall(context.Background(), env.Deployments, env.Cluster, name, name) })

	before := scrape(t, metricsURL)
	queued, ok := value(before, "styrmin_tasks_queued", nil)
	require.True(t, ok, "the queue's depth is exported")
	require.Zero(t, queued)

	operator, err := env.Users.Create(ctx, auth.NewUser{Username: "olga", Password: handlerstest.CatalogPassword, Role: auth.Operator})
	require.NoError(t, err)
	token, err := env.APITokens.Create(ctx, auth.Credential{User: operator}, "metrics test", nil)
	require.NoError(t, err)
	status, body := handlerstest.CallServer(t, env.URL, token.Secret, http.MethodPost, "/deployments",
		map[string]any{"driver": "hello-web", "driver_version": "1.0.0", "name": name})
	require.Equal(t, http.StatusAccepted, status, "%s", body)
	var accepted struct {
		Task struct {
			ID int64 `json:"id"`
		} `json:"task"`
	}
	require.NoError(t, json.Unmarshal(body, &accepted))
	task := executortest.WaitRow(t, db.New(env.Pool), accepted.Task.ID)
	require.Equal(t, db.TaskStatus("succeeded"), task.Status, "the install succeeds on the cluster: %s", task.Message)
	status, body = handlerstest.CallServer(t, env.URL, token.Secret, http.MethodGet, "/deployments/"+name, nil)
	require.Equal(t, http.StatusOK, status, "%s", body)

	web := &handlerstest.CatalogEnv{Env: env}
	client := web.SignedIn(t, auth.ReadOnly)
	for range 2 {
		for _, path := range []string{"/drivers", "/drivers/hello-web", "/deployments/" + name, fmt.Sprintf("/deployments/%s/tasks/%d", name, task.ID)} {
			web.Get(t, client, path, http.StatusOK)
		}
	}
	jar, err := cookiejar.New(nil)
	require.NoError(t, err)
	anonymous := &http.Client{Jar: jar, CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}
	_, signin := web.Get(t, anonymous, "/signin", http.StatusOK)
	refused, err := anonymous.PostForm(env.URL+"/signin", url.Values{"username": {"nobody"}, "password": {"guess"}, views.CSRFField: {handlerstest.CSRFToken(t, signin)}})
	require.NoError(t, err)
	refused.Body.Close()
	require.Equal(t, http.StatusUnauthorized, refused.StatusCode)
	web.Get(t, client, "/no/such/page-7f3a", http.StatusNotFound)

	// River marks the job completed just after the task's end is recorded.
	families := scrapeUntil(t, metricsURL, "River's completed job", func(f map[string]*dto.MetricFamily) bool {
		n, ok := value(f, "styrmin_river_jobs", map[string]string{"state": "completed"})
		return ok && n == 1
	})
	for _, c := range []struct {
		name   string
		labels map[string]string
		want   float64
	}{
		{"styrmin_tasks_started_total", map[string]string{"kind": "install"}, 1},
		{"styrmin_tasks_ended_total", map[string]string{"kind": "install", "outcome": "succeeded"}, 1},
		{"styrmin_task_duration_seconds", map[string]string{"kind": "install", "outcome": "succeeded"}, 1},
		{"styrmin_tasks_queued", nil, 0},
		{"styrmin_tasks_queued_oldest_age_seconds", nil, 0},
		{"styrmin_action_runs_total", map[string]string{"outcome": "succeeded"}, 1},
		{"styrmin_action_jobs_total", map[string]string{"outcome": "succeeded"}, 1},
		{"styrmin_river_jobs", map[string]string{"state": "running"}, 0},
		{"styrmin_river_jobs", map[string]string{"state": "available"}, 0},
		{"styrmin_river_queue_jobs", map[string]string{"queue": "default", "state": "available"}, 0},
		{"styrmin_river_queue_jobs", map[string]string{"queue": "webhooks", "state": "running"}, 0},
		{"styrmin_signin_refusals_total", map[string]string{"reason": "failed"}, 1},
		{"styrmin_http_requests_total", map[string]string{"route": "/api/v1/deployments", "method": "POST", "status": "202"}, 1},
		{"styrmin_http_requests_total", map[string]string{"route": "/api/v1/deployments/:name", "method": "GET", "status": "200"}, 1},
		{"styrmin_http_requests_total", map[string]string{"route": "/deployments/:name", "method": "GET", "status": "200"}, 2},
		{"styrmin_http_requests_total", map[string]string{"route": "/deployments/:name/tasks/:id", "method": "GET", "status": "200"}, 2},
		{"styrmin_http_requests_total", map[string]string{"route": "/drivers/:name", "method": "GET", "status": "200"}, 2},
		{"styrmin_http_requests_total", map[string]string{"route": "/signin", "method": "POST", "status": "401"}, 1},
		{"styrmin_http_requests_total", map[string]string{"route": "unmatched", "method": "GET", "status": "404"}, 1},
		{"styrmin_http_request_duration_seconds", map[string]string{"route": "/deployments/:name", "method": "GET"}, 2},
		// The second showing of each page came from memory.
		{"styrmin_cache_hits_total", map[string]string{"cache": "driver_grids"}, 1},
		{"styrmin_cache_misses_total", map[string]string{"cache": "driver_grids"}, 1},
		{"styrmin_cache_hits_total", map[string]string{"cache": "driver_pages"}, 1},
		{"styrmin_cache_hits_total", map[string]string{"cache": "action_forms"}, 1},
		{"styrmin_cache_misses_total", map[string]string{"cache": "action_forms"}, 1},
	} {
		got, ok := value(families, c.name, c.labels)
		require.True(t, ok, "%s%v is exported", c.name, c.labels)
		require.Equal(t, c.want, got, "%s%v", c.name, c.labels)
	}
	for _, cache := range []string{"driver_specs", "sessions", "api_tokens"} {
		hits, ok := value(families, "styrmin_cache_hits_total", map[string]string{"cache": cache})
		require.True(t, ok, "the %s cache is watched", cache)
		require.Positive(t, hits, "the %s cache answered a lookup", cache)
	}
	for _, standard := range []string{"go_goroutines", "go_memstats_heap_alloc_bytes", "process_resident_memory_bytes"} {
		require.Contains(t, families, standard)
	}
	require.Len(t, families["styrmin_deployment_health"].GetMetric(), 1, "one health series per deployment, and only that one names it")
	require.Equal(t, name, labelValue(families["styrmin_deployment_health"].GetMetric()[0], "deployment"))
	for family, f := range families {
		for _, series := range f.GetMetric() {
			for _, l := range series.GetLabel() {
				v := l.GetValue()
				if family != "styrmin_deployment_health" {
					require.NotContains(t, v, name, "%s: no label but the health's carries a deployment's name", family)
				}
				require.NotContains(t, v, "7f3a", "%s: no label carries a path a client sent", family)
				require.NotContains(t, v, "nobody", "%s: no label carries a username", family)
				require.NotRegexp(t, pathWithID, v, "%s: no label carries an id", family)
			}
		}
	}
	require.False(t, strings.HasPrefix(metricsURL, env.URL), "the metrics have their own address")
}

// labelValue is the value of series' label name, "" when it has none.
func labelValue(series *dto.Metric, name string) string {
	for _, l := range series.GetLabel() {
		if l.GetName() == name {
			return l.GetValue()
		}
	}
	return ""
}
