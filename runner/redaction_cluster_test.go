package runner_test

import (
	"context"
	"strings"
	"testing"
	"testing/fstest"

	"github.com/stretchr/testify/require"
	"gopkg.in/yaml.v3"

	"github.com/styrmin/styrmin/deployment"
	"github.com/styrmin/styrmin/deployment/deploymenttest"
	"github.com/styrmin/styrmin/devcluster/kubetest"
	"github.com/styrmin/styrmin/drivers/bundled/bundledtest"
	"github.com/styrmin/styrmin/executor"
	"github.com/styrmin/styrmin/redact"
)

// leakyChartFiles are templates a careless (or hostile) chart adds: its
// secret parameter in its NOTES, in a ConfigMap, and in the error of a
// render it fails on purpose.
var leakyChartFiles = map[string]string{
	"chart/templates/NOTES.txt": "Sign in with the API key {{ .Values.leak.apiKey }}.\n",
	"chart/templates/leak.yaml": `{{- if .Values.leak.fail }}
{{- fail (printf "this chart refuses the API key %s" .Values.leak.apiKey) }}
{{- end }}
apiVersion: v1
kind: ConfigMap
metadata:
  name: {{ .Release.Name }}-leak
data:
  apiKey: {{ .Values.leak.apiKey | quote }}
`,
}

// leakyDriver is Hello Web, without its actions, as version with a secret
// parameter api_key and a boolean fail that its chart writes where a reader
// would see them (leakyChartFiles).
func leakyDriver(t *testing.T, version string) fstest.MapFS {
	t.Helper()
	bundle := bundledtest.Edited(t, "hello-web", version, func(spec *yaml.Node) {
		for i := 0; i < len(spec.Content); i += 2 {
			if spec.Content[i].Value == "actions" {
				spec.Content = append(spec.Content[:i], spec.Content[i+2:]...)
				break
			}
		}
		values := bundledtest.MappingValue(t, bundledtest.MappingValue(t, bundledtest.MappingValue(t, spec, "helm"), "main"), "values")
		values.Value += "leak:\n  apiKey: {{ .Parameters.api_key | quote }}\n  fail: {{ .Parameters.fail }}\n"
		var params yaml.Node
		require.NoError(t, yaml.Unmarshal([]byte(`
- {name: api_key, title: API key, type: secret, required: true}
- {name: fail, title: Fail the render, type: boolean, default: false}
`), &params))
		list := bundledtest.MappingValue(t, spec, "parameters")
		list.Content = append(list.Content, params.Content[0].Content...)
	})
	for path, text := range leakyChartFiles {
		bundle[path] = &fstest.MapFile{Data: []byte(text)}
	}
	return bundle
}

// TestAChartThatWritesASecretParameterEverywhereShowsItNowhere is the
// attack of issue 18 item 4: a driver renders its secret parameter into its
// NOTES, a ConfigMap and an error message. What a reader (a read-only user,
// the API) is shown of the install's result, the deployment's live notes,
// an upgrade's review (its diff and dry-run error) and a failed upgrade (its
// step and task messages) holds <redacted> in its place.
func TestAChartThatWritesASecretParameterEverywhereShowsItNowhere(t *testing.T) {
	t.Parallel()
	f := deploymenttest.SetupCluster(t)
	ctx := context.Background()
	_, err := f.Catalog.ImportFS(ctx, leakyDriver(t, "9.0.0"), ".", "test")
	require.NoError(t, err)
	name := kubetest.UniqueName("leaky")
	f.CleanUp(t, name)
	const first, second = "first-api-key-8d1f2a", "second-api-key-5c7e9b"
	requireHidden := func(what, text string) {
		t.Helper()
		require.NotContains(t, text, first, what)
		require.NotContains(t, text, second, what)
		require.Contains(t, text, redact.Mark, what)
	}

	install := f.WaitTask(t, name, deploymenttest.Queued(t)(f.Svc.Queue(ctx, &deployment.Install{
		Driver: "hello-web", DriverVersion: "9.0.0", Name: name, AppVersion: "1.27.0",
		Parameters: deployment.FormInput{"site_title": "Leaky", "replicas": "1", "api_key": first}, By: "alice",
	})))
	requireHidden("the install's result (its notes)", string(install.Result))
	d := deploymenttest.MustGet(t, f.Fixture, name)
	live := f.Svc.Live(ctx, d, nil)
	require.Empty(t, live.Err)
	requireHidden("the deployment's live notes", live.Notes)

	review, err := f.Svc.Review(ctx, &deployment.Upgrade{Name: name, Parameters: deployment.FormInput{"api_key": second}, By: "alice"})
	require.NoError(t, err)
	require.Empty(t, review.DryRunError)
	var leakDiff string
	for _, r := range review.Resources {
		if r.Kind == "ConfigMap" && r.Name == name+"-leak" {
			leakDiff = r.Diff
		}
	}
	require.NotEmpty(t, leakDiff, "the review shows the ConfigMap's change: %+v", review.Resources)
	requireHidden("the ConfigMap's diff", leakDiff)

	failing, err := f.Svc.Review(ctx, &deployment.Upgrade{Name: name, Parameters: deployment.FormInput{"api_key": second, "fail": "true"}, By: "alice"})
	require.NoError(t, err)
	requireHidden("the dry run's error", failing.DryRunError)
	upgrade := f.WaitEnded(t, name, deploymenttest.Queued(t)(f.Svc.Queue(ctx, deployment.ConfirmUpgrade{Token: failing.Token, By: "alice"})).TaskID)
	require.Equal(t, executor.TaskFailed, upgrade.Status)
	requireHidden("the failed upgrade's message", upgrade.Message)
	var messages []string
	for _, s := range upgrade.Steps {
		messages = append(messages, s.Title, s.Message)
	}
	require.NotContains(t, strings.Join(messages, "\n"), second, "no step shows the key")
}
