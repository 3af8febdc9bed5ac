package chartrender_test

import (
	"context"
	"fmt"
	"os/exec"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	"helm.sh/helm/v3/pkg/chart"
	"helm.sh/helm/v3/pkg/chart/loader"

	styrmin "github.com/styrmin/styrmin"
	"github.com/styrmin/styrmin/chartrender"
	"github.com/styrmin/styrmin/drivers"
	"github.com/styrmin/styrmin/drivers/bundled"
	"github.com/styrmin/styrmin/release"
)

// hostileChart is a chart loaded from a Chart.yaml and the given templates,
// by file name under templates/.
func hostileChart(t *testing.T, templates map[string]string) *chart.Chart {
	t.Helper()
	files := []*loader.BufferedFile{{Name: "Chart.yaml", Data: []byte("apiVersion: v2\nname: hostile\nversion: 0.1.0\n")}}
	for name, data := range templates {
		files = append(files, &loader.BufferedFile{Name: "templates/" + name, Data: []byte(data)})
	}
	c, err := loader.LoadFiles(files)
	require.NoError(t, err)
	return c
}

// fanOut is a template that includes level 0, which includes level 1 twice,
// and so on for levels levels: 2^levels includes.
func fanOut(levels int) string {
	var b strings.Builder
	for i := range levels {
		fmt.Fprintf(&b, "{{- define \"l%d\" }}{{ include \"l%d\" . }}{{ include \"l%d\" . }}{{ end }}\n", i, i+1, i+1)
	}
	fmt.Fprintf(&b, "{{- define \"l%d\" }}x{{ end }}\n", levels)
	b.WriteString("kind: ConfigMap\ndata: {x: {{ include \"l0\" . | quote }}}\n")
	return b.String()
}

// heapAlloc is this process's live heap, after a collection.
func heapAlloc() uint64 {
	runtime.GC()
	var m runtime.MemStats
	runtime.ReadMemStats(&m)
	return m.HeapAlloc
}

// TestAHostileChartIsRefusedAtItsBudget: each bomb is refused with its
// budget's error as soon as it passes the budget (the child dies at its
// memory cap or is killed at its deadline), and this process does not grow.
// The budgets but the first are smaller than the constants, to stop soon.
func TestAHostileChartIsRefusedAtItsBudget(t *testing.T) {
	before := heapAlloc()
	// long is a time budget that the other bombs do not reach: their
	// budget's error shows that they stopped before it.
	const long = 30 * time.Second
	for _, tc := range []struct {
		name, template string
		memory         int64
		time           time.Duration
		output         int64
		message        string
	}{
		{"repeat", `x: {{ repeat 2000000000 "x" }}`, chartrender.MaxMemory, long, chartrender.MaxOutput, "need more than 512 MiB of memory to render"},
		{"until", `{{ range until 300000000 }}{{ end }}`, 128 << 20, long, chartrender.MaxOutput, "need more than 128 MiB of memory to render"},
		{"include fan-out", fanOut(40), chartrender.MaxMemory, 2 * time.Second, chartrender.MaxOutput, "take longer than 2s to render"},
		{"slow loop", `{{ range until 10000 }}{{ range until 10000 }}{{ end }}{{ end }}`, chartrender.MaxMemory, 2 * time.Second, chartrender.MaxOutput, "take longer than 2s to render"},
		{"large output", `x: {{ repeat 1200000 "x" }}`, chartrender.MaxMemory, long, 1 << 20, "render more than 1 MiB of manifests"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			start := time.Now()
			_, err := chartrender.RenderWithin(t.Context(), chartrender.Request{
				Chart: hostileChart(t, map[string]string{"bomb.yaml": tc.template}), Namespace: "ns", Name: "bomb",
			}, tc.memory, tc.time, tc.output)
			require.Equal(t, styrmin.EINVALID, styrmin.ErrorCode(err), "%v", err)
			require.Contains(t, styrmin.ErrorMessage(err), "The templates of chart hostile "+tc.message)
			if tc.time < long {
				require.Less(t, time.Since(start), tc.time+5*time.Second, "the child was killed at its deadline")
			}
		})
	}
	require.Less(t, heapAlloc(), before+64<<20, "the bombs went off in the child, not here")
}

// TestABundledChartRendersAsInProcess: the child renders the bundled charts,
// hooks and typed values included, exactly as Helm does in this process.
func TestABundledChartRendersAsInProcess(t *testing.T) {
	t.Parallel()
	for _, name := range bundled.Names() {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			b, err := drivers.LoadBundle(t.Context(), bundled.Bundles(), name)
			require.NoError(t, err)
			d := b.Driver
			values, err := release.Values(t.Context(), d, d.SampleValues(), b.Chart.Metadata.AppVersion, "ns", "rel")
			require.NoError(t, err)
			for _, upgrade := range []bool{false, true} {
				req := chartrender.Request{Chart: b.Chart, Values: values, Namespace: "ns", Name: "rel", Upgrade: upgrade}
				want, err := chartrender.RenderHere(req)
				require.NoError(t, err)
				got, err := chartrender.Render(t.Context(), req)
				require.NoError(t, err)
				require.Equal(t, want, got)
				require.Contains(t, got, "# Source: "+b.Chart.Metadata.Name+"/templates/")
			}
		})
	}
}

// TestValuesKeepTheirTypes: numbers, nil and nested values reach the
// child's templates as they are here (1000000 an int, not 1e+06).
func TestValuesKeepTheirTypes(t *testing.T) {
	t.Parallel()
	c := hostileChart(t, map[string]string{"cm.yaml": `kind: ConfigMap
data:
  big: {{ .Values.big | quote }}
  float: {{ .Values.float | quote }}
  none: {{ .Values.nested.none | quote }}
  list: {{ .Values.nested.list | toJson | quote }}
  upgrade: {{ .Release.IsUpgrade | quote }}
  file: {{ .Files.Get "files/a.txt" | quote }}
`})
	c.Files = append(c.Files, &chart.File{Name: "files/a.txt", Data: []byte("from a file")})
	req := chartrender.Request{Chart: c, Namespace: "ns", Name: "rel", Upgrade: true, Values: map[string]any{
		"big": 1000000, "float": 1.5, "nested": map[string]any{"none": nil, "list": []any{int64(2), "x", true, map[string]string{"k": "v"}}},
	}}
	got, err := chartrender.Render(t.Context(), req)
	require.NoError(t, err)
	want, err := chartrender.RenderHere(req)
	require.NoError(t, err)
	require.Equal(t, want, got)
	for _, line := range []string{`big: "1000000"`, `float: "1.5"`, "none: \n", `list: "[2,\"x\",true,{\"k\":\"v\"}]"`, `upgrade: "true"`, `file: "from a file"`} {
		require.Contains(t, got, line)
	}
}

// TestAChartThatFailsSaysWhy: Helm's own message, as an EINVALID error.
func TestAChartThatFailsSaysWhy(t *testing.T) {
	t.Parallel()
	_, err := chartrender.Render(t.Context(), chartrender.Request{
		Chart: hostileChart(t, map[string]string{"fail.yaml": `{{ fail "needs a storage class" }}`}), Namespace: "ns", Name: "rel",
	})
	require.Equal(t, styrmin.EINVALID, styrmin.ErrorCode(err))
	require.Contains(t, styrmin.ErrorMessage(err), "Helm could not render the chart: ")
	require.Contains(t, styrmin.ErrorMessage(err), "needs a storage class")
}

// TestTheCallersEndStopsTheRender: a cancelled context stops a slow render
// at once, with the context's error rather than a budget's.
func TestTheCallersEndStopsTheRender(t *testing.T) {
	t.Parallel()
	ctx, cancel := context.WithTimeout(t.Context(), 300*time.Millisecond)
	defer cancel()
	start := time.Now()
	_, err := chartrender.Render(ctx, chartrender.Request{
		Chart: hostileChart(t, map[string]string{"loop.yaml": `{{ range until 10000 }}{{ range until 10000 }}{{ end }}{{ end }}`}), Namespace: "ns", Name: "rel",
	})
	require.ErrorIs(t, err, context.DeadlineExceeded)
	require.NotEqual(t, styrmin.EINVALID, styrmin.ErrorCode(err))
	require.Less(t, time.Since(start), 3*time.Second)
}

// TestAChildTheKernelKillsIsTheMemoryBudgets: a child killed by SIGKILL
// (what the OOM killer sends when a pod's memory runs out before the
// child's cap) counts as the memory budget passed; one that fails does not.
func TestAChildTheKernelKillsIsTheMemoryBudgets(t *testing.T) {
	t.Parallel()
	err := exec.Command("/bin/sh", "-c", "kill -9 $$").Run()
	require.True(t, chartrender.Killed(err), "%v", err)
	err = exec.Command("/bin/sh", "-c", "exit 2").Run()
	require.False(t, chartrender.Killed(err), "%v", err)
	require.False(t, chartrender.Killed(context.DeadlineExceeded))
}
