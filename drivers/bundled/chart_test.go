package bundled_test

import (
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
	"helm.sh/helm/v3/pkg/lint"

	"github.com/styrmin/styrmin/drivers/bundled"
)

func TestChartsRenderWhatTheDriversPromise(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name    string
		bundle  string
		version string
		release string
		params  map[string]any
		kinds   map[string]int
		check   func(t *testing.T, m manifests)
	}{
		{
			name: "hello-web defaults", bundle: "hello-web", version: "1.27.3", release: "demo",
			kinds: map[string]int{"Deployment": 1, "Service": 1, "ConfigMap": 1},
			check: func(t *testing.T, m manifests) {
				require.Equal(t, "nginx:1.27.3", m.workloads[0].pod.Containers[0].Image)
				page := m.configMaps[0].Data["index.html"]
				require.Contains(t, page, "<title>Hello from Styrmin</title>")
				require.Contains(t, page, "nginx 1.27.3")
			},
		},
		{
			name: "hello-web with a long release name and HTML in the message", bundle: "hello-web", version: "1.26.0",
			release: strings.Repeat("a", 53),
			params:  map[string]any{"theme": "midnight", "show_version": false, "message": "Line one\n\nLine <b>two</b>", "replicas": 5},
			kinds:   map[string]int{"Deployment": 1, "Service": 1, "ConfigMap": 1},
			check: func(t *testing.T, m manifests) {
				page := m.configMaps[0].Data["index.html"]
				require.Contains(t, page, "Line &lt;b&gt;two&lt;/b&gt;")
				require.Contains(t, page, "#7b6cf6", "the midnight theme's accent colour")
				require.NotContains(t, page, "nginx 1.26.0")
			},
		},
		{
			name: "postgresql defaults", bundle: "postgresql", version: "16.4.0", release: "demo",
			kinds: map[string]int{"StatefulSet": 1, "Service": 2, "Secret": 1, "ConfigMap": 1},
			check: func(t *testing.T, m manifests) {
				require.Equal(t, "postgres:16.4", m.workloads[0].pod.Containers[0].Image)
				require.Equal(t, "8Gi", m.workloads[0].claimTemplates[0].Spec.Resources.Requests.Storage().String())
			},
		},
		{
			name: "postgresql with init SQL and full logging", bundle: "postgresql", version: "17.2.0", release: "orders",
			params: map[string]any{"init_sql": "CREATE EXTENSION IF NOT EXISTS pgcrypto;\nCREATE ROLE reader;", "log_statement": "all", "log_connections": true, "storage_gib": 100},
			kinds:  map[string]int{"StatefulSet": 1, "Service": 2, "Secret": 1, "ConfigMap": 1},
			check: func(t *testing.T, m manifests) {
				require.Equal(t, "postgres:17.2", m.workloads[0].pod.Containers[0].Image)
				require.Equal(t, "CREATE EXTENSION IF NOT EXISTS pgcrypto;\nCREATE ROLE reader;", m.configMaps[0].Data["10-init.sql"])
				require.Subset(t, m.workloads[0].pod.Containers[0].Args, []string{"log_statement=all", "log_connections=on"})
				require.Equal(t, "100Gi", m.workloads[0].claimTemplates[0].Spec.Resources.Requests.Storage().String())
			},
		},
		{
			name: "redis defaults", bundle: "redis", version: "7.4.1", release: "demo",
			kinds: map[string]int{"StatefulSet": 2, "Service": 4, "Secret": 1, "ConfigMap": 1},
			check: func(t *testing.T, m manifests) {
				conf := m.configMaps[0].Data["redis.conf"]
				require.Contains(t, conf, "maxmemory 256mb")
				require.Contains(t, conf, "appendonly no")
				for _, w := range m.workloads {
					require.Empty(t, w.claimTemplates, w.name)
				}
			},
		},
		{
			name: "redis persistent without replicas", bundle: "redis", version: "7.2.5", release: "sessions",
			params: map[string]any{"persistence": true, "replicas": 0, "extra_config": "notify-keyspace-events Ex\nlatency-monitor-threshold 100\n"},
			kinds:  map[string]int{"StatefulSet": 2, "Service": 4, "Secret": 1, "ConfigMap": 1},
			check: func(t *testing.T, m manifests) {
				conf := m.configMaps[0].Data["redis.conf"]
				require.Contains(t, conf, "appendonly yes")
				require.Contains(t, conf, "\nnotify-keyspace-events Ex\nlatency-monitor-threshold 100")
				for _, w := range m.workloads {
					require.Len(t, w.claimTemplates, 1, w.name)
				}
			},
		},
	}
	covered := map[string]bool{}
	for _, tt := range tests {
		covered[tt.bundle] = true
	}
	for _, name := range bundled.Names() {
		require.True(t, covered[name], "bundle %s has no render test case", name)
	}

	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			b := loadBundle(t, tt.bundle)
			d := b.Driver
			objects := renderManifests(t, b.Chart, tt.release, renderValues(t, d, tt.version, tt.release, tt.params))
			requireValidNames(t, objects)
			m := sortManifests(t, objects)
			require.Equal(t, tt.kinds, m.kinds)
			requireConsistentWorkloads(t, m)
			requireComponentsMatch(t, d, m)
			requireServicesExposed(t, d, m)
			for _, s := range m.secrets {
				require.Equal(t, testPassword, string(s.Data["password"]), "the Secret holds the secret parameter")
			}
			tt.check(t, m)
		})
	}
}

func TestChartsPassHelmLint(t *testing.T) {
	t.Parallel()
	for _, name := range bundled.Names() {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			b := loadBundle(t, name)
			values := renderValues(t, b.Driver, b.Chart.Metadata.AppVersion, "demo", nil)
			linter := lint.All(filepath.Join(name, "chart"), values, "apps", true)
			require.Empty(t, linter.Messages, "helm lint reports nothing, not even INFO")
		})
	}
}
