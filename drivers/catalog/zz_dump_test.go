package catalog_test

import (
	"os"
	"path"
	"strings"
	"testing"

	"helm.sh/helm/v3/pkg/chartutil"
	"helm.sh/helm/v3/pkg/engine"
)

func TestZZDump(t *testing.T) {
	cases := map[string]map[string]any{
		"hello-web":  {"theme": "midnight"},
		"postgresql": {"init_sql": "CREATE EXTENSION IF NOT EXISTS pgcrypto;"},
		"redis":      {"persistence": true},
	}
	for name, params := range cases {
		for i, p := range []map[string]any{nil, params} {
			b := loadBundle(t, name)
			vals := renderValues(t, b.Driver, b.Chart.Metadata.AppVersion, "demo", p)
			rv, _ := chartutil.ToRenderValues(b.Chart, vals, chartutil.ReleaseOptions{Name: "demo", Namespace: "apps", IsInstall: true}, chartutil.DefaultCapabilities)
			out, err := engine.Engine{Strict: true}.Render(b.Chart, rv)
			if err != nil {
				t.Fatal(err)
			}
			var sb strings.Builder
			for k, v := range out {
				if strings.HasPrefix(path.Base(k), "_") {
					continue
				}
				sb.WriteString("---\n" + v + "\n")
			}
			os.MkdirAll("/tmp/manifests", 0o755)
			os.WriteFile("/tmp/manifests/"+name+"-"+string(rune('0'+i))+".yaml", []byte(sb.String()), 0o644)
		}
	}
}
