package deployer_test

import (
	"context"
	"fmt"
	"log/slog"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
	"helm.sh/helm/v3/pkg/chart"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/styrmin/styrmin/release"
)

// attackChart is a chart whose templates are the given files.
func attackChart(files map[string]string) *chart.Chart {
	c := &chart.Chart{Metadata: &chart.Metadata{APIVersion: chart.APIVersionV2, Name: "attack", Version: "0.1.0"}}
	for name, data := range files {
		c.Templates = append(c.Templates, &chart.File{Name: name, Data: []byte(data)})
	}
	return c
}

// releases is Styrmin's release layer, acting as each namespace's deployer.
func releases(t *testing.T, e env, maxHistory int) *release.Client {
	t.Helper()
	c, err := release.New(e.styrmin.Config, release.Options{ActAs: e.deployers.Impersonation, MaxHistory: maxHistory}, slog.New(slog.DiscardHandler))
	require.NoError(t, err)
	return c
}

// TestHelmAsTheDeployerAppliesNothingOutsideTheNamespace performs, through
// Helm with no check of Styrmin's at all (as if its reading of the manifest
// missed everything), each attack a chart could make with Styrmin's own
// credentials: the cluster refuses each, and nothing of it is left.
func TestHelmAsTheDeployerAppliesNothingOutsideTheNamespace(t *testing.T) {
	t.Parallel()
	owner := release.Owner{Installation: "test", Deployment: 1}
	// The secret another namespace holds, which no chart may read.
	victim := setup(t)
	_, err := victim.styrmin.Clientset.CoreV1().Secrets(victim.ns).Create(context.Background(), &corev1.Secret{
		ObjectMeta: metav1.ObjectMeta{Name: "key"}, StringData: map[string]string{"key": "the-victims-key"}}, metav1.CreateOptions{})
	require.NoError(t, err)

	attacks := []struct {
		name, file, template, refusal string
	}{
		{"a ClusterRoleBinding to cluster-admin hidden behind an Items key", "templates/crb.yaml", `apiVersion: rbac.authorization.k8s.io/v1
kind: ClusterRoleBinding
Items: []
metadata: {name: "{{ .Release.Namespace }}-owned"}
roleRef: {apiGroup: rbac.authorization.k8s.io, kind: ClusterRole, name: cluster-admin}
subjects: [{kind: ServiceAccount, name: default, namespace: "{{ .Release.Namespace }}"}]
`, "forbidden"},
		{"a ConfigMap of its own in kube-system", "templates/cm.yaml", `apiVersion: v1
kind: ConfigMap
metadata: {name: "{{ .Release.Namespace }}-planted", namespace: kube-system}
data: {planted: "yes"}
`, "forbidden"},
		{"NOTES that read another namespace's Secret with lookup", "templates/NOTES.txt",
			fmt.Sprintf(`{{ (lookup "v1" "Secret" %q "key").data.key | b64dec }}`, victim.ns), "forbidden"},
		{"a pod with the node's PID namespace and root folder", "templates/pod.yaml", `apiVersion: v1
kind: Pod
metadata: {name: peek}
spec:
  hostPID: true
  containers: [{name: c, image: "busybox:1.36", securityContext: {privileged: true}, volumeMounts: [{name: root, mountPath: /host}]}]
  volumes: [{name: root, hostPath: {path: /}}]
`, "violates PodSecurity"},
		{"a forged Helm record of its own release", "templates/record.yaml", `apiVersion: v1
kind: Secret
type: helm.sh/release.v1
metadata:
  name: "sh.helm.release.v1.{{ .Release.Name }}.v9"
  labels: {owner: helm, name: "{{ .Release.Name }}", status: deployed, version: "9"}
data: {release: SDRzSQ==}
`, "Styrmin keeps the Helm release records"},
		{"a pre-install hook that binds cluster-admin", "templates/hook.yaml", `apiVersion: rbac.authorization.k8s.io/v1
kind: ClusterRoleBinding
metadata:
  name: "{{ .Release.Namespace }}-hooked"
  annotations: {"helm.sh/hook": pre-install}
roleRef: {apiGroup: rbac.authorization.k8s.io, kind: ClusterRole, name: cluster-admin}
subjects: [{kind: ServiceAccount, name: default, namespace: "{{ .Release.Namespace }}"}]
`, "forbidden"},
	}
	for _, attack := range attacks {
		t.Run(attack.name, func(t *testing.T) {
			t.Parallel()
			ctx := context.Background()
			e := setup(t)
			c := attackChart(map[string]string{attack.file: attack.template,
				"templates/plain.yaml": "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: plain}\ndata: {a: b}\n"})
			rel, err := releases(t, e, 0).Install(ctx, release.InstallOptions{Namespace: e.ns, Name: "app", Chart: c, Owner: owner})
			require.Error(t, err, "the attack was applied")
			require.Contains(t, err.Error(), attack.refusal)
			if rel != nil {
				require.NotContains(t, rel.Notes, "the-victims-key")
			}
			require.NotContains(t, err.Error(), "the-victims-key")

			cs := e.styrmin.Clientset
			_, err = cs.RbacV1().ClusterRoleBindings().Get(ctx, e.ns+"-owned", metav1.GetOptions{})
			require.True(t, apierrors.IsNotFound(err), "the ClusterRoleBinding exists: %v", err)
			_, err = cs.RbacV1().ClusterRoleBindings().Get(ctx, e.ns+"-hooked", metav1.GetOptions{})
			require.True(t, apierrors.IsNotFound(err), "the hook's ClusterRoleBinding exists: %v", err)
			_, err = cs.CoreV1().ConfigMaps("kube-system").Get(ctx, e.ns+"-planted", metav1.GetOptions{})
			require.True(t, apierrors.IsNotFound(err), "the ConfigMap in kube-system exists: %v", err)
			_, err = cs.CoreV1().Pods(e.ns).Get(ctx, "peek", metav1.GetOptions{})
			require.True(t, apierrors.IsNotFound(err), "the pod exists: %v", err)
			records, err := cs.CoreV1().Secrets(e.ns).List(ctx, metav1.ListOptions{LabelSelector: "owner=helm"})
			require.NoError(t, err)
			for _, r := range records.Items {
				require.NotEqual(t, "9", r.Labels["version"], "the forged record was stored")
			}
		})
	}
}

// TestAnInstallWithNothingSpecialActsAsTheDeployerAndKeepsItsHistoryBounded:
// a chart that stays in its namespace installs and upgrades as the deployer;
// Helm's records are Styrmin's (the deployer may not write them), and only
// the newest revisions are kept, with their values.
func TestAnInstallWithNothingSpecialActsAsTheDeployerAndKeepsItsHistoryBounded(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	e := setup(t)
	owner := release.Owner{Installation: "test", Deployment: 1}
	c := attackChart(map[string]string{"templates/cm.yaml": "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: settings}\ndata: {revision: \"{{ .Values.n }}\"}\n"})
	helm := releases(t, e, 2)
	_, err := helm.Install(ctx, release.InstallOptions{Namespace: e.ns, Name: "app", Chart: c, Owner: owner, Values: map[string]any{"n": 1}})
	require.NoError(t, err)
	for n := 2; n <= 4; n++ {
		_, err = helm.Upgrade(ctx, release.UpgradeOptions{Namespace: e.ns, Name: "app", Chart: c, Owner: owner, Values: map[string]any{"n": n}})
		require.NoError(t, err)
	}
	cm, err := e.styrmin.Clientset.CoreV1().ConfigMaps(e.ns).Get(ctx, "settings", metav1.GetOptions{})
	require.NoError(t, err)
	require.Equal(t, "4", cm.Data["revision"])
	history, err := helm.History(ctx, e.ns, "app")
	require.NoError(t, err)
	var kept []string
	for _, r := range history {
		kept = append(kept, fmt.Sprint(r.Number))
	}
	require.Equal(t, "3 4", strings.Join(kept, " "), "the revisions kept")
}

// TestWhatHelmAppliesIsCheckedAsApplied: a check that accepts the dry run
// but refuses what Helm then applies (a chart rendering differently the
// second time, through `now` or `lookup`) stops the install before its
// pre-install hook is created, which a post-renderer never sees.
func TestWhatHelmAppliesIsCheckedAsApplied(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	e := setup(t)
	c := attackChart(map[string]string{"templates/hook.yaml": `apiVersion: v1
kind: ConfigMap
metadata:
  name: hooked
  annotations: {"helm.sh/hook": pre-install}
data: {a: b}
`})
	calls := 0
	check := func(manifest string) error {
		calls++
		if calls > 1 {
			return fmt.Errorf("renders differently when applied")
		}
		return nil
	}
	_, err := releases(t, e, 0).Install(ctx, release.InstallOptions{Namespace: e.ns, Name: "app", Chart: c, Owner: release.Owner{Installation: "test", Deployment: 1}, Check: check})
	require.ErrorContains(t, err, "renders differently when applied")
	require.Equal(t, 2, calls, "the dry run, then the hook as Helm applied it")
	_, err = e.styrmin.Clientset.CoreV1().ConfigMaps(e.ns).Get(ctx, "hooked", metav1.GetOptions{})
	require.True(t, apierrors.IsNotFound(err), "the hook was created: %v", err)
}
