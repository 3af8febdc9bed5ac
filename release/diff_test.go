package release_test

import (
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/styrmin/styrmin/release"
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
