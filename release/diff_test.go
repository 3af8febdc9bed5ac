package release_test

import (
	"context"
	"encoding/base64"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
	"helm.sh/helm/v3/pkg/chart"

	"github.com/styrmin/styrmin/release"
	"github.com/styrmin/styrmin/release/releasetest"
)

func TestDiffManifests(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name     string
		old, new string
		want     []release.ResourceDiff
	}{
		{
			name: "same resources in another order and format are unchanged",
			old:  "kind: ConfigMap\nmetadata: {name: a}\ndata: {x: '1'}\n---\nkind: Service\nmetadata: {name: b}\n",
			new:  "# Source: c.yaml\nkind: Service\nmetadata:\n  name: b\n---\nmetadata: {name: a}\nkind: ConfigMap\ndata:\n  x: \"1\"\n",
			want: []release.ResourceDiff{
				{Kind: "ConfigMap", Name: "a", Change: release.Unchanged},
				{Kind: "Service", Name: "b", Change: release.Unchanged},
			},
		},
		{
			name: "a changed field gives a unified diff",
			old:  "apiVersion: apps/v1\nkind: Deployment\nmetadata: {name: web}\nspec: {replicas: 1}\n",
			new:  "apiVersion: apps/v1\nkind: Deployment\nmetadata: {name: web}\nspec: {replicas: 3}\n",
			want: []release.ResourceDiff{{Kind: "Deployment", Name: "web", Change: release.Changed, Diff: `--- old/Deployment/web
+++ new/Deployment/web
@@ -3,4 +3,4 @@
 metadata:
   name: web
 spec:
-  replicas: 1
+  replicas: 3
`}},
		},
		{
			name: "added and removed resources, namespaces kept apart",
			old:  "kind: ConfigMap\nmetadata: {name: gone, namespace: a}\n",
			new:  "kind: ConfigMap\nmetadata: {name: gone, namespace: b}\n",
			want: []release.ResourceDiff{
				{Kind: "ConfigMap", Namespace: "a", Name: "gone", Change: release.Removed, Diff: `--- old/a/ConfigMap/gone
+++ new/a/ConfigMap/gone
@@ -1,4 +0,0 @@
-kind: ConfigMap
-metadata:
-  name: gone
-  namespace: a
`},
				{Kind: "ConfigMap", Namespace: "b", Name: "gone", Change: release.Added, Diff: `--- old/b/ConfigMap/gone
+++ new/b/ConfigMap/gone
@@ -0,0 +1,4 @@
+kind: ConfigMap
+metadata:
+  name: gone
+  namespace: b
`},
			},
		},
		{
			name: "secret values never show, changed keys are named",
			old:  "kind: Secret\nmetadata: {name: s}\ndata: {same: c2FtZQ==, changed: b2xk, removed: eA==}\nstringData: {plain: old-password}\n",
			new:  "kind: Secret\nmetadata: {name: s}\ndata: {same: c2FtZQ==, changed: bmV3, added: eQ==}\nstringData: {plain: new-password}\n",
			want: []release.ResourceDiff{{
				Kind: "Secret", Name: "s", Change: release.Changed,
				ChangedSecretKeys: []string{"data.added", "data.changed", "data.removed", "stringData.plain"},
				Diff: `--- old/Secret/s
+++ new/Secret/s
@@ -1,9 +1,9 @@
 data:
-  changed: <redacted>
-  removed: <redacted>
+  added: <redacted>
+  changed: '<redacted: changed>'
   same: <redacted>
 kind: Secret
 metadata:
   name: s
 stringData:
-  plain: <redacted>
+  plain: '<redacted: changed>'
`,
			}},
		},
		{
			name: "an unchanged secret is unchanged",
			old:  "kind: Secret\nmetadata: {name: s}\nstringData: {password: hunter2}\n",
			new:  "kind: Secret\nmetadata: {name: s}\nstringData: {password: hunter2}\n",
			want: []release.ResourceDiff{{Kind: "Secret", Name: "s", Change: release.Unchanged}},
		},
		{
			name: "a new secret shows its keys, not its values",
			old:  "",
			new:  "kind: Secret\nmetadata: {name: s}\nstringData: {password: hunter2}\n",
			want: []release.ResourceDiff{{
				Kind: "Secret", Name: "s", Change: release.Added, ChangedSecretKeys: []string{"stringData.password"},
				Diff: "--- old/Secret/s\n+++ new/Secret/s\n@@ -0,0 +1,5 @@\n+kind: Secret\n+metadata:\n+  name: s\n+stringData:\n+  password: <redacted>\n",
			}},
		},
		{
			name: "empty documents are skipped",
			old:  "---\n---\n# only a comment\n",
			new:  "",
			want: []release.ResourceDiff{},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			got := release.DiffManifests(tt.old, tt.new)
			require.Equal(t, tt.want, got)
			for _, d := range got {
				require.NotContains(t, d.Diff, "hunter2")
				require.NotContains(t, d.Diff, "password:  new-password")
			}
		})
	}
}

// TestDiffManifestsMasksSecretsInsideLists: a chart that wraps its Secret in
// a List (or in any object with an items array, as Kubernetes reads lists,
// nested to permissions.MaxListDepth) has it applied as a Secret, so the diff
// shows each item as the object it is, and a Secret's values nowhere. Lists
// nested deeper, which Helm's permission check refuses, show no item.
func TestDiffManifestsMasksSecretsInsideLists(t *testing.T) {
	t.Parallel()
	const secret = "kind: Secret\nmetadata: {name: s}\ndata: {password: aHVudGVyMg==}\nstringData: {url: 'postgres://app:hunter2@db/app'}\n"
	indent := func(doc, by string) string {
		return by + strings.ReplaceAll(strings.TrimSuffix(doc, "\n"), "\n", "\n"+by) + "\n"
	}
	list := func(kind, item string) string {
		return "apiVersion: v1\nkind: " + kind + "\nitems:\n- " + strings.TrimPrefix(indent(item, "  "), "  ")
	}
	nested := func(depth int) string {
		doc := secret
		for range depth {
			doc = list("List", doc)
		}
		return doc
	}
	tests := []struct {
		name     string
		manifest string
		// want is the kind of each resource of the diff, "" for none.
		want []string
	}{
		{"a v1 List", list("List", secret), []string{"Secret"}},
		{"a SecretList", list("SecretList", secret), []string{"Secret"}},
		{"an object of another kind with items", list("ConfigMap", secret), []string{"Secret"}},
		{"a List beside a ConfigMap", "kind: ConfigMap\nmetadata: {name: c}\n---\n" + list("List", secret), []string{"ConfigMap", "Secret"}},
		{"a List in JSON", `{"apiVersion": "v1", "kind": "List", "items": [{"kind": "Secret", "metadata": {"name": "s"}, "stringData": {"url": "postgres://app:hunter2@db/app"}}]}`, []string{"Secret"}},
		{"lists nested 4 deep", nested(4), []string{"Secret"}},
		{"lists nested 5 deep, past the bound", nested(5), []string{"List"}},
		{"lists nested 6 deep, past the bound", nested(6), []string{"List"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			for _, pair := range [][2]string{{"", tt.manifest}, {tt.manifest, ""}, {tt.manifest, strings.ReplaceAll(tt.manifest, "hunter2", "hunter3")}} {
				var kinds []string
				for _, d := range release.DiffManifests(pair[0], pair[1]) {
					kinds = append(kinds, d.Kind)
					for _, value := range []string{"hunter", "aHVudGVyMg"} {
						require.NotContains(t, d.Diff, value, "the diff of %s/%s", d.Kind, d.Name)
					}
				}
				require.Equal(t, tt.want, kinds)
			}
		})
	}
}

// listedSecrets is a chart that wraps its Secrets, which hold the password
// value, in a v1 List and in a List inside a SecretList.
func listedSecrets() *chart.Chart {
	return &chart.Chart{
		Metadata: &chart.Metadata{APIVersion: chart.APIVersionV2, Name: "listed", Version: "0.1.0"},
		Templates: []*chart.File{{Name: "templates/secrets.yaml", Data: []byte(`apiVersion: v1
kind: List
items:
- apiVersion: v1
  kind: Secret
  metadata: {name: {{ .Release.Name }}-db}
  data: {password: {{ .Values.password | b64enc }}}
  stringData: {url: "postgres://app:{{ .Values.password }}@db/app"}
---
apiVersion: v1
kind: SecretList
items:
- apiVersion: v1
  kind: List
  items:
  - apiVersion: v1
    kind: Secret
    metadata: {name: {{ .Release.Name }}-nested}
    stringData: {password: {{ .Values.password | quote }}}
`)}},
	}
}

// TestAnUpgradeDiffShowsNoValueOfASecretInsideAList: a chart renders its
// password into Secrets wrapped in lists; the diff of an upgrade that changes
// the password, as the upgrade review shows it, names the Secrets and their
// changed keys and holds neither password, plain or base64.
func TestAnUpgradeDiffShowsNoValueOfASecretInsideAList(t *testing.T) {
	t.Parallel()
	client := releasetest.New(t).Client
	ctx := context.Background()
	const before, after = "first-hunter2", "second-hunter2"
	installed, err := client.Install(ctx, release.InstallOptions{Namespace: ns, Owner: owner, Name: "listed", Chart: listedSecrets(), Values: map[string]any{"password": before}})
	require.NoError(t, err)
	dry, err := client.Upgrade(ctx, release.UpgradeOptions{Namespace: ns, Owner: owner, Name: "listed", Chart: listedSecrets(), Values: map[string]any{"password": after}, DryRun: true})
	require.NoError(t, err)
	require.Contains(t, dry.Manifest, after, "the chart renders the password")

	changed := map[string][]string{}
	for _, d := range release.DiffManifests(installed.Manifest, dry.Manifest) {
		for _, password := range []string{before, after} {
			for _, form := range []string{password, base64.StdEncoding.EncodeToString([]byte(password))} {
				require.NotContains(t, d.Diff, form, "the diff of %s/%s", d.Kind, d.Name)
			}
		}
		changed[d.Kind+"/"+d.Name] = d.ChangedSecretKeys
	}
	require.Equal(t, map[string][]string{
		"Secret/listed-db":     {"data.password", "stringData.url"},
		"Secret/listed-nested": {"stringData.password"},
	}, changed)
}
