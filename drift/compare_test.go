package drift_test

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/styrmin/styrmin/drift"
)

const manifest = `---
# Source: hello/templates/deployment.yaml
apiVersion: apps/v1
kind: Deployment
metadata:
  name: web
  labels: {app: hello}
spec:
  replicas: 2
  template:
    spec:
      containers:
      - name: web
        image: hello:1
        resources: {limits: {cpu: 500m, memory: 1Gi}}
        readOnly: false
---
apiVersion: v1
kind: Secret
metadata: {name: creds}
stringData: {password: hunter2}
data: {token: c2VjcmV0}
---
apiVersion: v1
kind: ConfigMap
metadata: {name: settings}
data: {greeting: hi}
`

// live is the web Deployment as the cluster returns it: with what the
// cluster adds (status, defaults, managedFields, its annotations) and
// quantities written its own way.
func live(replicas int64, image, team string) map[string]any {
	labels := map[string]any{"app": "hello"}
	if team != "" {
		labels["team"] = team
	}
	return map[string]any{
		"apiVersion": "apps/v1", "kind": "Deployment",
		"metadata": map[string]any{"name": "web", "namespace": "ns", "labels": labels, "resourceVersion": "42",
			"annotations":   map[string]any{"deployment.kubernetes.io/revision": "3"},
			"managedFields": []any{map[string]any{"manager": "helm"}}},
		"spec": map[string]any{"replicas": replicas, "revisionHistoryLimit": int64(10),
			"template": map[string]any{"spec": map[string]any{
				"restartPolicy": "Always",
				"containers": []any{map[string]any{"name": "web", "image": image, "imagePullPolicy": "IfNotPresent",
					"resources": map[string]any{"limits": map[string]any{"cpu": "0.5", "memory": "1024Mi"}}}}}}},
		"status": map[string]any{"replicas": int64(1)},
	}
}

func objects(t *testing.T) map[string]drift.Object {
	t.Helper()
	objs, err := drift.Objects(manifest)
	require.NoError(t, err)
	out := map[string]drift.Object{}
	for _, o := range objs {
		out[o.Kind] = o
	}
	require.Len(t, out, 3)
	return out
}

func TestCompare(t *testing.T) {
	t.Parallel()
	web := objects(t)["Deployment"]
	stopped := drift.Options{Stopped: []drift.Ref{{Kind: "Deployment", Name: "web"}}}
	tests := []struct {
		name string
		live map[string]any
		opts drift.Options
		want []drift.FieldDiff
	}{
		{name: "fields the cluster sets or defaults are no drift", live: live(2, "hello:1", "")},
		{name: "replicas scaled behind Styrmin's back", live: live(5, "hello:1", ""),
			want: []drift.FieldDiff{{Path: "spec.replicas", Want: "2", Have: "5"}}},
		{name: "a stopped component's replicas are no drift", live: live(0, "hello:1", ""), opts: stopped},
		{name: "a stopped component's other fields still are", live: live(0, "hello:2", ""), opts: stopped,
			want: []drift.FieldDiff{{Path: "spec.template.spec.containers[0].image", Want: `"hello:1"`, Have: `"hello:2"`}}},
		{name: "a label the manifest does not set is no drift", live: live(2, "hello:1", "ops")},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			d := drift.Compare(web, tt.live, tt.opts)
			if tt.want == nil {
				require.Nil(t, d)
				return
			}
			require.NotNil(t, d)
			require.Equal(t, drift.Changed, d.Change)
			require.Equal(t, "42", d.ResourceVersion)
			require.Equal(t, tt.want, d.Fields)
		})
	}
}

func TestCompareLabelChangedAndRemoved(t *testing.T) {
	t.Parallel()
	cm := objects(t)["ConfigMap"]
	d := drift.Compare(cm, map[string]any{"metadata": map[string]any{"name": "settings"}, "data": map[string]any{"greeting": "hello", "extra": "x"}}, drift.Options{})
	require.Equal(t, []drift.FieldDiff{{Path: "data.greeting", Want: `"hi"`, Have: `"hello"`}}, d.Fields)

	web := objects(t)["Deployment"]
	l := live(2, "hello:1", "")
	delete(l["metadata"].(map[string]any)["labels"].(map[string]any), "app")
	d = drift.Compare(web, l, drift.Options{})
	require.Equal(t, []drift.FieldDiff{{Path: "metadata.labels.app", Want: `"hello"`, Have: ""}}, d.Fields)
}

func TestCompareDeletedObject(t *testing.T) {
	t.Parallel()
	d := drift.Compare(objects(t)["ConfigMap"], nil, drift.Options{})
	require.Equal(t, &drift.ObjectDiff{Ref: drift.Ref{APIVersion: "v1", Kind: "ConfigMap", Name: "settings"}, Change: drift.Deleted, Fingerprint: d.Fingerprint}, d)
	require.NotEmpty(t, d.Fingerprint)
}

func TestCompareMasksSecrets(t *testing.T) {
	t.Parallel()
	secret := objects(t)["Secret"]
	same := map[string]any{"metadata": map[string]any{"name": "creds"}, "type": "Opaque",
		"data": map[string]any{"password": "aHVudGVyMg==", "token": "c2VjcmV0"}}
	require.Nil(t, drift.Compare(secret, same, drift.Options{}), "stringData is compared as the cluster stores it, in data")

	changed := map[string]any{"metadata": map[string]any{"name": "creds"},
		"data": map[string]any{"password": "b3RoZXItcGFzc3dvcmQ="}}
	d := drift.Compare(secret, changed, drift.Options{})
	require.NotNil(t, d)
	require.Equal(t, []drift.FieldDiff{
		{Path: "data.password", Want: drift.Masked, Have: drift.Masked},
		{Path: "data.token", Want: drift.Masked, Have: ""},
	}, d.Fields)
	for _, f := range d.Fields {
		for _, value := range []string{"hunter2", "aHVudGVyMg", "b3RoZXIt", "c2VjcmV0", "other-password"} {
			require.NotContains(t, f.Want+f.Have, value)
		}
	}
}

func TestCompareBoundsFields(t *testing.T) {
	t.Parallel()
	data := map[string]any{}
	lines := []string{"apiVersion: v1", "kind: ConfigMap", "metadata: {name: big}", "data:"}
	for i := range drift.MaxFields + 7 {
		key := "k" + strings.Repeat("x", i)
		lines = append(lines, "  "+key+": "+strings.Repeat("v", 1000))
		data[key] = "other"
	}
	objs, err := drift.Objects(strings.Join(lines, "\n"))
	require.NoError(t, err)
	d := drift.Compare(objs[0], map[string]any{"metadata": map[string]any{"name": "big"}, "data": data}, drift.Options{})
	require.Len(t, d.Fields, drift.MaxFields)
	require.Equal(t, 7, d.FieldsLeftOut)
	require.LessOrEqual(t, len(d.Fields[0].Want), drift.MaxValueBytes+len("…"))
}
