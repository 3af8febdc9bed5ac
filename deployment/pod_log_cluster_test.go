package deployment_test

import (
	"context"
	"strings"
	"testing"
	"testing/fstest"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/styrmin/styrmin/deployment"
	"github.com/styrmin/styrmin/deployment/deploymenttest"
	"github.com/styrmin/styrmin/devcluster/kubetest"
	"github.com/styrmin/styrmin/kube"
	"github.com/styrmin/styrmin/redact"
)

// loggerBundle is a local driver "logger" with a secret parameter, token,
// whose one pod (the local cluster's PostgreSQL image, for its shell)
// floods its log with one line of 20 MB, then, once the kubelet's rotation
// that the flood causes is over (lines written during it are served by no
// read), prints the token from its Secret and a last line.
var loggerBundle = fstest.MapFS{
	"logger/driver.styrmin.yml": {Data: []byte(`apiVersion: styrmin.io/v1
kind: Driver
metadata: {name: logger}
spec:
  version: 1.0.0
  supported_versions: ">=1.0.0"
  info: {title: Logger, description: A pod that prints its secret and floods its log.}
  helm:
    main:
      location: ./chart
      version: 1.0.0
      values: |
        token: {{ .Parameters.token | quote }}
  components:
    - name: app
      title: App
      selector: {matchLabels: {app: logger}}
  parameters:
    - {name: token, title: Token, type: secret, required: true}
`)},
	"logger/chart/Chart.yaml": {Data: []byte("apiVersion: v2\nname: logger\nversion: 1.0.0\nappVersion: 1.0.0\n")},
	"logger/chart/templates/objects.yaml": {Data: []byte(`apiVersion: v1
kind: Secret
metadata: {name: "{{ .Release.Name }}-token"}
stringData: {token: {{ .Values.token | quote }}}
---
apiVersion: apps/v1
kind: Deployment
metadata: {name: "{{ .Release.Name }}-app"}
spec:
  replicas: 1
  selector: {matchLabels: {app: logger}}
  template:
    metadata: {labels: {app: logger}}
    spec:
      containers:
        - name: app
          image: postgres:16.4
          command: [sh, -c, 'head -c 20000000 /dev/zero | tr "\0" A; echo; sleep 12; echo "token is $TOKEN"; echo the end; exec sleep 3600']
          env: [{name: TOKEN, valueFrom: {secretKeyRef: {name: "{{ .Release.Name }}-token", key: token}}}]
`)},
}

// TestPodLogOnTheNodeHidesTheSecretAnAppPrintsAndBoundsAFlood: on the
// local cluster's real node, the log of a pod that prints a secret
// parameter's value shows it redacted, read as the namespace's reviewer;
// its 20 MB line stays within the byte bound.
func TestPodLogOnTheNodeHidesTheSecretAnAppPrintsAndBoundsAFlood(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	f := deploymenttest.SetupCluster(t)
	_, err := f.Catalog.ImportFS(ctx, loggerBundle, "logger", "root")
	require.NoError(t, err)
	name := kubetest.UniqueName("logs")
	f.CleanUp(t, name)
	const token = "tok-3141592653-secret"
	f.WaitTask(t, name, deploymenttest.Queued(t)(f.Svc.Queue(ctx, &deployment.Install{Driver: "logger", DriverVersion: "1.0.0", Name: name,
		AppVersion: "1.0.0", Parameters: deployment.FormInput{"token": token}, By: "alice"})))

	var pod string
	var log *deployment.PodLog
	require.Eventually(t, func() bool {
		h, err := f.Svc.Health(ctx, name)
		if err != nil || len(h.Pods) == 0 {
			return false
		}
		pod = h.Pods[0].Name
		log, err = f.Svc.PodLog(ctx, deployment.LogRequest{Deployment: name, Pod: pod, LogOptions: kube.LogOptions{TailLines: 1}})
		return err == nil && len(log.Lines) == 1 && log.Lines[0].Text == "the end"
	}, 3*time.Minute, time.Second, "the pod prints its last line")

	log, err = f.Svc.PodLog(ctx, deployment.LogRequest{Deployment: name, Pod: pod, LogOptions: kube.LogOptions{TailLines: 2}})
	require.NoError(t, err)
	require.Equal(t, []string{"token is " + redact.Mark, "the end"}, texts(log))

	// The flood's end in the newest log file, at most 10 MB, is one line: a
	// read that reaches it stops at the byte bound.
	log, err = f.Svc.PodLog(ctx, deployment.LogRequest{Deployment: name, Pod: pod, LogOptions: kube.LogOptions{TailLines: kube.MaxLogLines}})
	require.NoError(t, err)
	all := strings.Join(texts(log), "\n")
	require.NotContains(t, all, token)
	require.LessOrEqual(t, len(all), kube.MaxLogBytes)
}

// texts are the texts of log's lines.
func texts(log *deployment.PodLog) []string {
	out := make([]string, 0, len(log.Lines))
	for _, l := range log.Lines {
		out = append(out, l.Text)
	}
	return out
}
