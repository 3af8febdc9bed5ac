// Package deploy_test checks the Helm chart in deploy/chart: helm lint, and the
// objects it renders for its main options. The chart is proved on a real
// cluster by deploy/chart_cluster_test.go.
package deploy_test

import (
	"encoding/base64"
	"path"
	"slices"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
	"helm.sh/helm/v3/pkg/chart"
	"helm.sh/helm/v3/pkg/chart/loader"
	"helm.sh/helm/v3/pkg/chartutil"
	"helm.sh/helm/v3/pkg/engine"
	"helm.sh/helm/v3/pkg/lint"
	"helm.sh/helm/v3/pkg/releaseutil"
	appsv1 "k8s.io/api/apps/v1"
	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
	networkingv1 "k8s.io/api/networking/v1"
	policyv1 "k8s.io/api/policy/v1"
	rbacv1 "k8s.io/api/rbac/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	k8sruntime "k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/runtime/serializer"
	"k8s.io/client-go/dynamic"
	dynamicfake "k8s.io/client-go/dynamic/fake"
	"k8s.io/client-go/kubernetes/scheme"
)

const chartDir = "chart"

// externalDB is the smallest working configuration: an external PostgreSQL by URL.
func externalDB() map[string]any {
	return map[string]any{"database": map[string]any{"url": "postgres://styrmin:pw@db.example:5432/styrmin"}}
}

func loadChart(t *testing.T) *chart.Chart {
	t.Helper()
	ch, err := loader.Load(chartDir)
	require.NoError(t, err)
	return ch
}

// rendered is the chart's output for one set of values, decoded strictly.
type rendered struct {
	objects []k8sruntime.Object
}

// render renders the chart as release "sm" in namespace "ops", as an install
// (no objects in the cluster) or, with existing objects, as an upgrade that
// lookup sees them in.
func render(t *testing.T, values map[string]any, existing ...k8sruntime.Object) rendered {
	t.Helper()
	out, err := renderFiles(t, values, existing...)
	require.NoError(t, err)
	decoder := serializer.NewCodecFactory(scheme.Scheme, serializer.EnableStrict).UniversalDeserializer()
	var r rendered
	for name, content := range out {
		if strings.HasPrefix(path.Base(name), "_") || strings.HasSuffix(name, "NOTES.txt") {
			continue
		}
		for _, doc := range releaseutil.SplitManifests(content) {
			if strings.TrimSpace(doc) == "" {
				continue
			}
			obj, _, err := decoder.Decode([]byte(doc), nil, nil)
			require.NoError(t, err, "%s:\n%s", name, doc)
			r.objects = append(r.objects, obj)
		}
	}
	return r
}

func renderFiles(t *testing.T, values map[string]any, existing ...k8sruntime.Object) (map[string]string, error) {
	t.Helper()
	ch := loadChart(t)
	vals, err := chartutil.ToRenderValues(ch, values,
		chartutil.ReleaseOptions{Name: "sm", Namespace: "ops", Revision: 1, IsInstall: len(existing) == 0, IsUpgrade: len(existing) > 0},
		chartutil.DefaultCapabilities)
	require.NoError(t, err)
	return engine.RenderWithClientProvider(ch, vals, fakeClients{dynamicfake.NewSimpleDynamicClient(k8sruntime.NewScheme(), toUnstructured(t, existing)...)})
}

// fakeClients answers lookup from a fake cluster holding Secrets only.
type fakeClients struct {
	client *dynamicfake.FakeDynamicClient
}

func (f fakeClients) GetClientFor(apiVersion, kind string) (dynamic.NamespaceableResourceInterface, bool, error) {
	return f.client.Resource(schema.GroupVersionResource{Version: "v1", Resource: strings.ToLower(kind) + "s"}), true, nil
}

func toUnstructured(t *testing.T, objects []k8sruntime.Object) []k8sruntime.Object {
	t.Helper()
	var out []k8sruntime.Object
	for _, o := range objects {
		u, err := k8sruntime.DefaultUnstructuredConverter.ToUnstructured(o)
		require.NoError(t, err)
		obj := &unstructured.Unstructured{}
		obj.SetUnstructuredContent(u)
		obj.SetAPIVersion("v1")
		obj.SetKind("Secret")
		obj.SetNamespace("ops")
		out = append(out, obj)
	}
	return out
}

func find[T k8sruntime.Object](r rendered, name string) T {
	var zero T
	for _, o := range r.objects {
		if v, ok := o.(T); ok && o.(metav1.Object).GetName() == name {
			return v
		}
	}
	return zero
}

func all[T k8sruntime.Object](r rendered) []T {
	var out []T
	for _, o := range r.objects {
		if v, ok := o.(T); ok {
			out = append(out, v)
		}
	}
	return out
}

func envOf(c corev1.Container) map[string]corev1.EnvVar {
	m := map[string]corev1.EnvVar{}
	for _, e := range c.Env {
		m[e.Name] = e
	}
	return m
}

func TestChartPassesHelmLint(t *testing.T) {
	t.Parallel()
	for name, values := range map[string]map[string]any{
		"external database": externalDB(),
		"evaluation":        {"postgresql": map[string]any{"enabled": true}, "ingress": map[string]any{"enabled": true}},
		"namespaced":        {"database": map[string]any{"existingSecret": "db"}, "rbac": map[string]any{"namespaces": []any{"apps"}}},
	} {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			linter := lint.All(chartDir, values, "ops", true)
			require.Empty(t, linter.Messages, "helm lint reports nothing, not even INFO")
		})
	}
}

func TestChartRunsTwoWebServersAndOneWorker(t *testing.T) {
	t.Parallel()
	r := render(t, externalDB())

	web := find[*appsv1.Deployment](r, "sm-styrmin-web")
	require.NotNil(t, web)
	require.EqualValues(t, 2, *web.Spec.Replicas)
	c := web.Spec.Template.Spec.Containers[0]
	require.Equal(t, []string{"serve", "--no-executor"}, c.Args)
	require.Equal(t, "styrmin.local/styrmin:"+loadChart(t).Metadata.AppVersion, c.Image, "the tag defaults to the chart's appVersion")
	require.Equal(t, "/healthz", c.LivenessProbe.HTTPGet.Path)
	require.Equal(t, "/readyz", c.ReadinessProbe.HTTPGet.Path)
	require.Equal(t, "0.0.0.0:8080", envOf(c)["STYRMIN_ADDR"].Value)
	require.Equal(t, "http://sm-styrmin.ops.svc:80", envOf(c)["STYRMIN_API_URL"].Value, "actions call back through the Service")

	worker := find[*appsv1.Deployment](r, "sm-styrmin-worker")
	require.NotNil(t, worker)
	require.EqualValues(t, 1, *worker.Spec.Replicas)
	wc := worker.Spec.Template.Spec.Containers[0]
	require.Equal(t, "worker", wc.Args[0])
	require.Equal(t, "http://sm-styrmin.ops.svc:80", envOf(wc)["STYRMIN_API_URL"].Value)
	require.EqualValues(t, 60, *worker.Spec.Template.Spec.TerminationGracePeriodSeconds, "the drain timeout fits in the grace period")
	require.Equal(t, "1", envOf(wc)["STYRMIN_ACTION_POD_CPU"].Value)
	require.Equal(t, "512Mi", envOf(wc)["STYRMIN_ACTION_POD_MEMORY"].Value, "the action pods' default limits")

	svc := find[*corev1.Service](r, "sm-styrmin")
	require.NotNil(t, svc)
	require.Equal(t, web.Spec.Selector.MatchLabels, svc.Spec.Selector, "the Service sends to web pods only")
	pdb := all[*policyv1.PodDisruptionBudget](r)
	require.Len(t, pdb, 1)
	require.Equal(t, web.Spec.Selector.MatchLabels, pdb[0].Spec.Selector.MatchLabels)
	require.Empty(t, all[*networkingv1.Ingress](r), "no Ingress unless asked")
	require.Empty(t, all[*appsv1.StatefulSet](r), "no PostgreSQL with an external one")
}

func TestChartPodsRunAsNonRootOnAReadOnlyRootFilesystem(t *testing.T) {
	t.Parallel()
	r := render(t, externalDB())
	var specs []corev1.PodSpec
	for _, d := range all[*appsv1.Deployment](r) {
		specs = append(specs, d.Spec.Template.Spec)
	}
	for _, j := range all[*batchv1.Job](r) {
		specs = append(specs, j.Spec.Template.Spec)
	}
	require.Len(t, specs, 3, "web, worker and the migration Job")
	for _, s := range specs {
		require.True(t, *s.SecurityContext.RunAsNonRoot)
		require.EqualValues(t, 65532, *s.SecurityContext.RunAsUser)
		c := s.Containers[0]
		require.True(t, *c.SecurityContext.ReadOnlyRootFilesystem)
		require.False(t, *c.SecurityContext.AllowPrivilegeEscalation)
		require.Equal(t, []corev1.Capability{"ALL"}, c.SecurityContext.Capabilities.Drop)
		require.Equal(t, "/tmp", c.VolumeMounts[0].MountPath, "the one writable place")
	}
}

func TestChartMigratesOncePerUpgradeInAHook(t *testing.T) {
	t.Parallel()
	job := find[*batchv1.Job](render(t, externalDB()), "sm-styrmin-migrate")
	require.NotNil(t, job)
	require.Equal(t, "pre-upgrade", job.Annotations["helm.sh/hook"])
	require.Equal(t, []string{"migrate"}, job.Spec.Template.Spec.Containers[0].Args)
	require.False(t, *job.Spec.Template.Spec.AutomountServiceAccountToken, "migrating needs no Kubernetes access")

	off := externalDB()
	off["migrations"] = map[string]any{"hook": false}
	require.Empty(t, all[*batchv1.Job](render(t, off)))
}

func TestChartGeneratesKeysOnceAndKeepsThemAcrossUpgrades(t *testing.T) {
	t.Parallel()
	first := find[*corev1.Secret](render(t, externalDB()), "sm-styrmin")
	require.NotNil(t, first)
	key, err := base64.StdEncoding.DecodeString(string(first.Data["secret-key"]))
	require.NoError(t, err, "the secret key is base64")
	require.Len(t, key, 32)
	require.Len(t, first.Data["admin-password"], 24)
	require.Equal(t, "postgres://styrmin:pw@db.example:5432/styrmin", string(first.Data["database-url"]))
	require.Equal(t, "keep", first.Annotations["helm.sh/resource-policy"], "uninstalling keeps the keys")

	again := find[*corev1.Secret](render(t, externalDB()), "sm-styrmin")
	require.NotEqual(t, first.Data["secret-key"], again.Data["secret-key"], "a fresh install makes a new key")

	upgraded := find[*corev1.Secret](render(t, externalDB(), first), "sm-styrmin")
	require.Equal(t, first.Data["secret-key"], upgraded.Data["secret-key"], "an upgrade keeps the key")
	require.Equal(t, first.Data["admin-password"], upgraded.Data["admin-password"])
}

func TestChartTakesExistingSecretsByName(t *testing.T) {
	t.Parallel()
	r := render(t, map[string]any{
		"database":      map[string]any{"existingSecret": "pg", "key": "url"},
		"secretKey":     map[string]any{"existingSecret": "keys"},
		"adminPassword": map[string]any{"existingSecret": "admin", "key": "pw"},
	})
	s := find[*corev1.Secret](r, "sm-styrmin")
	require.Empty(t, s.Data, "nothing generated when every Secret is given")
	env := envOf(find[*appsv1.Deployment](r, "sm-styrmin-web").Spec.Template.Spec.Containers[0])
	require.Equal(t, corev1.SecretKeySelector{LocalObjectReference: corev1.LocalObjectReference{Name: "pg"}, Key: "url"}, *env["STYRMIN_DATABASE_URL"].ValueFrom.SecretKeyRef)
	require.Equal(t, corev1.SecretKeySelector{LocalObjectReference: corev1.LocalObjectReference{Name: "keys"}, Key: "secret-key"}, *env["STYRMIN_SECRET_KEY"].ValueFrom.SecretKeyRef)
	require.Equal(t, corev1.SecretKeySelector{LocalObjectReference: corev1.LocalObjectReference{Name: "admin"}, Key: "pw"}, *env["STYRMIN_ADMIN_PASSWORD"].ValueFrom.SecretKeyRef)
}

func TestChartNeedsExactlyOneDatabase(t *testing.T) {
	t.Parallel()
	for name, values := range map[string]map[string]any{
		"none": {},
		"two":  {"database": map[string]any{"url": "postgres://x/y"}, "postgresql": map[string]any{"enabled": true}},
	} {
		t.Run(name, func(t *testing.T) {
			_, err := renderFiles(t, values)
			require.ErrorContains(t, err, "set exactly one database: database.url, database.existingSecret, or postgresql.enabled=true")
		})
	}
}

func TestChartEvaluationPostgreSQL(t *testing.T) {
	t.Parallel()
	r := render(t, map[string]any{"postgresql": map[string]any{"enabled": true}})
	sts := find[*appsv1.StatefulSet](r, "sm-styrmin-postgresql")
	require.NotNil(t, sts)
	require.Equal(t, "docker.io/library/postgres:15", sts.Spec.Template.Spec.Containers[0].Image)
	s := find[*corev1.Secret](r, "sm-styrmin")
	pw := string(s.Data["postgresql-password"])
	require.Len(t, pw, 24)
	require.Equal(t, "postgres://styrmin:"+pw+"@sm-styrmin-postgresql:5432/styrmin?sslmode=disable", string(s.Data["database-url"]))
	require.NotNil(t, find[*corev1.Service](r, "sm-styrmin-postgresql"))
}

func TestChartIngressWhenEnabled(t *testing.T) {
	t.Parallel()
	values := externalDB()
	values["ingress"] = map[string]any{"enabled": true, "host": "styrmin.corp", "tlsSecretName": "tls", "className": "nginx"}
	ing := all[*networkingv1.Ingress](render(t, values))
	require.Len(t, ing, 1)
	require.Equal(t, "styrmin.corp", ing[0].Spec.Rules[0].Host)
	require.Equal(t, "sm-styrmin", ing[0].Spec.Rules[0].HTTP.Paths[0].Backend.Service.Name)
	require.Equal(t, "tls", ing[0].Spec.TLS[0].SecretName)
}

func TestChartMetricsPortIsOffByDefault(t *testing.T) {
	t.Parallel()
	c := find[*appsv1.Deployment](render(t, externalDB()), "sm-styrmin-web").Spec.Template.Spec.Containers[0]
	require.Len(t, c.Ports, 1)
	require.NotContains(t, envOf(c), "STYRMIN_METRICS_ADDR")

	values := externalDB()
	values["metrics"] = map[string]any{"enabled": true, "port": 9100}
	c = find[*appsv1.Deployment](render(t, values), "sm-styrmin-web").Spec.Template.Spec.Containers[0]
	require.Equal(t, "0.0.0.0:9100", envOf(c)["STYRMIN_METRICS_ADDR"].Value)
	require.EqualValues(t, 9100, c.Ports[1].ContainerPort)
}

// namespaceRules are the verbs a role grants on namespaces.
func namespaceVerbs(rules []rbacv1.PolicyRule) []string {
	var verbs []string
	for _, r := range rules {
		if slices.Contains(r.Resources, "namespaces") {
			verbs = append(verbs, r.Verbs...)
		}
	}
	return verbs
}

// TestChartRBACIsOneClusterRoleByDefault: Styrmin's own rules are one
// ClusterRole, without wildcards, that may bind no role but admin (to its
// deployers) and impersonate users (its deployers); granting what admins
// approve is a second ClusterRole, absent when rbac.grantApproved is off.
func TestChartRBACIsOneClusterRoleByDefault(t *testing.T) {
	t.Parallel()
	r := render(t, externalDB())
	require.Empty(t, all[*rbacv1.Role](r))
	require.Len(t, all[*rbacv1.ClusterRole](r), 2)
	own := find[*rbacv1.ClusterRole](r, "sm-styrmin-ops")
	require.NotNil(t, find[*rbacv1.ClusterRole](r, "sm-styrmin-ops-grants"))
	require.Equal(t, []string{"get", "list", "watch", "create", "delete", "patch", "update"}, namespaceVerbs(own.Rules))
	require.Len(t, all[*rbacv1.ClusterRoleBinding](r), 2)
	binding := find[*rbacv1.ClusterRoleBinding](r, "sm-styrmin-ops")
	require.Equal(t, rbacv1.Subject{Kind: "ServiceAccount", Name: "sm-styrmin", Namespace: "ops"}, binding.Subjects[0])
	require.Equal(t, "sm-styrmin", find[*appsv1.Deployment](r, "sm-styrmin-worker").Spec.Template.Spec.ServiceAccountName)
	for _, rule := range own.Rules {
		require.NotContains(t, rule.Verbs, "*", "no wildcards")
		require.NotContains(t, rule.Resources, "*")
		if slices.Contains(rule.Resources, "clusterroles") {
			require.Equal(t, []string{"bind"}, rule.Verbs, "Styrmin cannot grant itself more")
			require.Equal(t, []string{"admin"}, rule.ResourceNames, "it binds only admin, to its deployers")
		}
		if slices.Contains(rule.Verbs, "impersonate") {
			require.Equal(t, []string{"users"}, rule.Resources, "it impersonates no ServiceAccount or group")
		}
	}

	values := externalDB()
	values["rbac"] = map[string]any{"grantApproved": false}
	require.Len(t, all[*rbacv1.ClusterRole](render(t, values)), 1, "no grants role when grants are off")
}

func TestChartRBACCanBeLimitedToListedNamespaces(t *testing.T) {
	t.Parallel()
	values := externalDB()
	values["rbac"] = map[string]any{"namespaces": []any{"team-a", "team-b"}}
	r := render(t, values)
	roles := all[*rbacv1.Role](r)
	require.Len(t, roles, 2)
	require.ElementsMatch(t, []string{"team-a", "team-b"}, []string{roles[0].Namespace, roles[1].Namespace})
	require.Empty(t, namespaceVerbs(roles[0].Rules))
	require.Len(t, all[*rbacv1.RoleBinding](r), 2)
	require.Len(t, all[*rbacv1.ClusterRole](r), 2, "its own and the grants'")
	own := find[*rbacv1.ClusterRole](r, "sm-styrmin-ops")
	require.Equal(t, []string{"get", "patch", "update"}, namespaceVerbs(own.Rules), "it cannot create or delete namespaces")
	for _, rule := range own.Rules {
		if slices.Contains(rule.Resources, "namespaces") {
			require.Equal(t, []string{"team-a", "team-b"}, rule.ResourceNames)
		}
		if slices.Contains(rule.Verbs, "impersonate") {
			require.Equal(t, []string{"styrmin:deployer:team-a", "styrmin:deployer:team-b"}, rule.ResourceNames, "only the listed namespaces' deployers")
		}
	}
}
