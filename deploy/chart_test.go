// Package deploy_test checks the Helm chart in deploy/chart: helm lint, and the
// objects it renders for its main options. The chart is proved on a real
// cluster by deploy/chart_cluster_test.go.
package deploy_test

import (
	"maps"
	"path"
	"slices"
	"sort"
	"strconv"
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
	"k8s.io/apimachinery/pkg/labels"
	k8sruntime "k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/serializer"
	"k8s.io/apimachinery/pkg/util/intstr"
	"k8s.io/client-go/kubernetes/scheme"
	"sigs.k8s.io/yaml"

	"github.com/styrmin/styrmin/metrics/metricstest"
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

// rendered is the chart's output for one set of values, decoded strictly;
// kinds client-go does not know (the Prometheus Operator's) are decoded
// as unstructured objects.
type rendered struct {
	objects []k8sruntime.Object
}

// render renders the chart as release "sm" in namespace "ops", as `helm
// template` does (Argo CD, Flux): with no cluster to look anything up in.
func render(t *testing.T, values map[string]any) rendered {
	t.Helper()
	out, err := renderFiles(t, values)
	require.NoError(t, err)
	decoder := serializer.NewCodecFactory(scheme.Scheme, serializer.EnableStrict).UniversalDeserializer()
	var r rendered
	for _, name := range slices.Sorted(maps.Keys(out)) {
		if strings.HasPrefix(path.Base(name), "_") || strings.HasSuffix(name, "NOTES.txt") {
			continue
		}
		for _, doc := range manifestDocs(out[name]) {
			if strings.TrimSpace(doc) == "" {
				continue
			}
			obj, _, err := decoder.Decode([]byte(doc), nil, nil)
			if k8sruntime.IsNotRegisteredError(err) {
				u := &unstructured.Unstructured{}
				require.NoError(t, yaml.Unmarshal([]byte(doc), &u.Object), "%s:\n%s", name, doc)
				obj, err = u, nil
			}
			require.NoError(t, err, "%s:\n%s", name, doc)
			r.objects = append(r.objects, obj)
		}
	}
	return r
}

// manifestDocs are the YAML documents of a rendered file in the order they
// stand in it (the Namespace before what it holds): releaseutil.SplitManifests'
// map alone gives a different order each run.
func manifestDocs(content string) []string {
	docs := releaseutil.SplitManifests(content)
	keys := slices.Collect(maps.Keys(docs))
	sort.Sort(releaseutil.BySplitManifestsOrder(keys))
	ordered := make([]string, len(keys))
	for i, key := range keys {
		ordered[i] = docs[key]
	}
	return ordered
}

// renderFiles renders the chart's templates with values as `helm template`
// does, checking the values against values.schema.json first as Helm's
// install, upgrade and template do; no lookup reaches a cluster.
func renderFiles(t *testing.T, values map[string]any) (map[string]string, error) {
	t.Helper()
	return renderRelease(t, "sm", "ops", values)
}

// renderRelease is renderFiles for release name in namespace.
func renderRelease(t *testing.T, name, namespace string, values map[string]any) (map[string]string, error) {
	t.Helper()
	ch := loadChart(t)
	vals, err := chartutil.ToRenderValues(ch, values,
		chartutil.ReleaseOptions{Name: name, Namespace: namespace, Revision: 1, IsInstall: true},
		chartutil.DefaultCapabilities)
	if err != nil {
		return nil, err
	}
	return engine.Render(ch, vals)
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

// findKind is find for objects the scheme does not know (the Prometheus
// Operator's), which may share a name with an object of another kind.
func findKind(r rendered, kind, name string) *unstructured.Unstructured {
	for _, u := range all[*unstructured.Unstructured](r) {
		if u.GetKind() == kind && u.GetName() == name {
			return u
		}
	}
	return nil
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

// evaluation is the evaluation setup: PostgreSQL in the chart, behind an Ingress.
func evaluation() map[string]any {
	return map[string]any{"postgresql": map[string]any{"enabled": true},
		"ingress": map[string]any{"enabled": true}, "trustedProxies": []any{"10.244.0.0/16"}}
}

// TestChartPassesHelmLintStrict: `helm lint --strict` (Helm's lint package in
// strict mode, the schema and kubeVersion included) reports nothing.
func TestChartPassesHelmLintStrict(t *testing.T) {
	t.Parallel()
	for name, values := range map[string]map[string]any{
		"external database": externalDB(),
		"evaluation":        evaluation(),
		"namespaced":        {"existingSecret": "keys", "rbac": map[string]any{"namespaces": []any{"apps"}}},
		"monitored": {"database": map[string]any{"url": "postgres://db/styrmin"},
			"metrics": map[string]any{"serviceMonitor": map[string]any{"enabled": true}, "prometheusRule": map[string]any{"enabled": true}}},
	} {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			linter := lint.All(chartDir, values, "ops", true)
			require.Empty(t, linter.Messages, "helm lint --strict reports nothing, not even INFO")
		})
	}
}

// TestChartSchemaRefusesTyposAndWrongTypes: values.schema.json refuses an
// unknown key at any level and a value of the wrong type, naming it, before
// anything renders (helm install and template fail alike).
func TestChartSchemaRefusesTyposAndWrongTypes(t *testing.T) {
	t.Parallel()
	for name, tc := range map[string]struct {
		values map[string]any
		want   string
	}{
		"unknown top-level key": {map[string]any{"replicas": 3}, "additional properties 'replicas' not allowed"},
		"unknown nested key":    {map[string]any{"web": map[string]any{"replica": 3}}, "additional properties 'replica' not allowed"},
		"unknown deep key":      {map[string]any{"metrics": map[string]any{"serviceMonitor": map[string]any{"enable": true}}}, "additional properties 'enable' not allowed"},
		"old secret values":     {map[string]any{"secretKey": map[string]any{"existingSecret": "k"}}, "additional properties 'secretKey' not allowed"},
		"wrong type":            {map[string]any{"web": map[string]any{"replicas": "two"}}, "at '/web/replicas': got string, want integer"},
		"wrong enum":            {map[string]any{"actions": map[string]any{"runtime": "docker"}}, "at '/actions/runtime': value must be one of 'pod', 'process'"},
		"bad URL":               {map[string]any{"externalURL": "styrmin.example.com"}, "at '/externalURL'"},
		"bad duration":          {map[string]any{"worker": map[string]any{"drainTimeout": "1m"}}, "at '/worker/drainTimeout': '1m' does not match pattern"},
	} {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			values := externalDB()
			maps.Copy(values, tc.values)
			_, err := renderFiles(t, values)
			require.ErrorContains(t, err, "values don't meet the specifications of the schema")
			require.ErrorContains(t, err, tc.want)
		})
	}
}

// TestChartRendersTheSameTwice: rendering is a function of the values (no
// random key, no lookup), so GitOps tools see no change where there is none.
func TestChartRendersTheSameTwice(t *testing.T) {
	t.Parallel()
	for name, values := range map[string]map[string]any{"external database": externalDB(), "evaluation": evaluation()} {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			first, err := renderFiles(t, values)
			require.NoError(t, err)
			again, err := renderFiles(t, values)
			require.NoError(t, err)
			require.Equal(t, first, again)
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
	require.Equal(t, []string{"serve", "--no-executor", "--serve", "web"}, c.Args, "the web pods do not answer the action API's paths")
	actions := find[*appsv1.Deployment](r, "sm-styrmin-actions").Spec.Template.Spec.Containers[0]
	require.Equal(t, []string{"serve", "--no-executor", "--serve", "actions"}, actions.Args, "the action API's pods answer nothing else")
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
	require.Equal(t, "http://sm-styrmin-actions.ops.svc.cluster.local:8081", envOf(wc)["STYRMIN_API_URL"].Value, "its actions call back the action API's pods")
	require.Equal(t, "http://sm-styrmin-actions.ops.svc.cluster.local:8081", envOf(wc)["STYRMIN_ACTION_API_URL"].Value)
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

// TestChartWorkerIsProbedOnItsMetricsServer: the worker serves nothing but
// its metrics server, whose /healthz and /readyz (metrics.Serve) its probes read.
func TestChartWorkerIsProbedOnItsMetricsServer(t *testing.T) {
	t.Parallel()
	c := find[*appsv1.Deployment](render(t, externalDB()), "sm-styrmin-worker").Spec.Template.Spec.Containers[0]
	require.Equal(t, "0.0.0.0:9090", envOf(c)["STYRMIN_METRICS_ADDR"].Value)
	require.Equal(t, []corev1.ContainerPort{{Name: "metrics", ContainerPort: 9090}}, c.Ports)
	require.Equal(t, &corev1.HTTPGetAction{Path: "/healthz", Port: intstr.FromString("metrics")}, c.LivenessProbe.HTTPGet)
	require.Equal(t, &corev1.HTTPGetAction{Path: "/readyz", Port: intstr.FromString("metrics")}, c.ReadinessProbe.HTTPGet)
}

// podSpecs are the pod specs of every workload, hook and test of r.
func podSpecs(r rendered) map[string]corev1.PodSpec {
	specs := map[string]corev1.PodSpec{}
	for _, d := range all[*appsv1.Deployment](r) {
		specs[d.Name] = d.Spec.Template.Spec
	}
	for _, s := range all[*appsv1.StatefulSet](r) {
		specs[s.Name] = s.Spec.Template.Spec
	}
	for _, j := range all[*batchv1.Job](r) {
		specs[j.Name] = j.Spec.Template.Spec
	}
	for _, p := range all[*corev1.Pod](r) {
		specs[p.Name] = p.Spec
	}
	return specs
}

func TestChartPodsRunAsNonRootOnAReadOnlyRootFilesystem(t *testing.T) {
	t.Parallel()
	specs := podSpecs(render(t, externalDB()))
	require.ElementsMatch(t, []string{"sm-styrmin-web", "sm-styrmin-worker", "sm-styrmin-actions", "sm-styrmin-migrate", "sm-styrmin-keys", "sm-styrmin-test"}, slices.Collect(maps.Keys(specs)))
	for name, s := range specs {
		require.True(t, *s.SecurityContext.RunAsNonRoot, name)
		require.EqualValues(t, 65532, *s.SecurityContext.RunAsUser, name)
		c := s.Containers[0]
		require.True(t, *c.SecurityContext.ReadOnlyRootFilesystem, name)
		require.False(t, *c.SecurityContext.AllowPrivilegeEscalation, name)
		require.Equal(t, []corev1.Capability{"ALL"}, c.SecurityContext.Capabilities.Drop, name)
		for _, m := range c.VolumeMounts {
			require.Equal(t, "/tmp", m.MountPath, "%s: the one writable place", name)
		}
	}
}

// TestChartEveryPodHasResourcesPullSecretsAndAnnotations: every pod the
// chart makes (workloads, hooks, the test, the evaluation PostgreSQL) has
// requests and a memory limit, the registries' Secrets and podAnnotations.
func TestChartEveryPodHasResourcesPullSecretsAndAnnotations(t *testing.T) {
	t.Parallel()
	values := evaluation()
	values["imagePullSecrets"] = []any{map[string]any{"name": "regcred"}}
	values["podAnnotations"] = map[string]any{"team": "platform"}
	r := render(t, values)
	specs := podSpecs(r)
	require.Len(t, specs, 7, "web, worker, action API, PostgreSQL, migration, keys, test")
	for name, s := range specs {
		require.Equal(t, []corev1.LocalObjectReference{{Name: "regcred"}}, s.ImagePullSecrets, name)
		for _, c := range s.Containers {
			require.False(t, c.Resources.Requests.Cpu().IsZero(), "%s: a CPU request", name)
			require.False(t, c.Resources.Requests.Memory().IsZero(), "%s: a memory request", name)
			require.False(t, c.Resources.Limits.Memory().IsZero(), "%s: a memory limit", name)
		}
	}
	var annotated []string
	for _, o := range r.objects {
		var meta metav1.ObjectMeta
		switch v := o.(type) {
		case *appsv1.Deployment:
			meta = v.Spec.Template.ObjectMeta
		case *appsv1.StatefulSet:
			meta = v.Spec.Template.ObjectMeta
		case *batchv1.Job:
			meta = v.Spec.Template.ObjectMeta
		case *corev1.Pod:
			meta = v.ObjectMeta
		default:
			continue
		}
		require.Equal(t, "platform", meta.Annotations["team"], o.(metav1.Object).GetName())
		annotated = append(annotated, o.(metav1.Object).GetName())
	}
	require.Len(t, annotated, 7)
}

// TestChartMountsExtraVolumes: extraVolumes and extraVolumeMounts reach the
// Styrmin containers, so that the *_FILE settings (the OIDC client secret)
// read a mounted Secret.
func TestChartMountsExtraVolumes(t *testing.T) {
	t.Parallel()
	values := externalDB()
	values["extraVolumes"] = []any{map[string]any{"name": "oidc", "secret": map[string]any{"secretName": "oidc"}}}
	values["extraVolumeMounts"] = []any{map[string]any{"name": "oidc", "mountPath": "/etc/styrmin/oidc", "readOnly": true}}
	values["extraEnv"] = []any{map[string]any{"name": "STYRMIN_OIDC_CLIENT_SECRET_FILE", "value": "/etc/styrmin/oidc/client-secret"}}
	r := render(t, values)
	for _, name := range []string{"sm-styrmin-web", "sm-styrmin-worker"} {
		spec := find[*appsv1.Deployment](r, name).Spec.Template.Spec
		require.Contains(t, spec.Volumes, corev1.Volume{Name: "oidc", VolumeSource: corev1.VolumeSource{Secret: &corev1.SecretVolumeSource{SecretName: "oidc"}}}, name)
		require.Contains(t, spec.Containers[0].VolumeMounts, corev1.VolumeMount{Name: "oidc", MountPath: "/etc/styrmin/oidc", ReadOnly: true}, name)
		require.Equal(t, "/etc/styrmin/oidc/client-secret", envOf(spec.Containers[0])["STYRMIN_OIDC_CLIENT_SECRET_FILE"].Value, name)
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
	require.Nil(t, find[*batchv1.Job](render(t, off), "sm-styrmin-migrate"))
}

// TestChartMakesItsKeysInAHookOnlyWhenMissing: no template holds a
// generated key; a pre-install and pre-upgrade hook Job runs `styrmin
// chart-secret` before anything reads the Secret, as a ServiceAccount that
// may read and update only that Secret (and create, which RBAC cannot
// limit by name).
func TestChartMakesItsKeysInAHookOnlyWhenMissing(t *testing.T) {
	t.Parallel()
	r := render(t, externalDB())
	require.Nil(t, find[*corev1.Secret](r, "sm-styrmin"), "the keys' Secret is not a template")
	db := find[*corev1.Secret](r, "sm-styrmin-database")
	require.Equal(t, map[string][]byte{"database-url": []byte("postgres://styrmin:pw@db.example:5432/styrmin")}, db.Data, "the URL given, nothing generated")

	job := find[*batchv1.Job](r, "sm-styrmin-keys")
	require.NotNil(t, job)
	require.Equal(t, "pre-install,pre-upgrade", job.Annotations["helm.sh/hook"])
	spec := job.Spec.Template.Spec
	require.Equal(t, []string{"chart-secret", "--name=sm-styrmin"}, spec.Containers[0].Args)
	require.Equal(t, "sm-styrmin-keys", spec.ServiceAccountName)
	weight := func(o metav1.Object) int {
		w, err := strconv.Atoi(o.GetAnnotations()["helm.sh/hook-weight"])
		require.NoError(t, err)
		return w
	}
	sa := find[*corev1.ServiceAccount](r, "sm-styrmin-keys")
	role := find[*rbacv1.Role](r, "sm-styrmin-keys")
	binding := find[*rbacv1.RoleBinding](r, "sm-styrmin-keys")
	for _, o := range []metav1.Object{sa, role, binding} {
		require.Equal(t, "pre-install,pre-upgrade", o.GetAnnotations()["helm.sh/hook"], o.GetName())
		require.Less(t, weight(o), weight(job), "%s exists before the Job runs", o.GetName())
	}
	require.Equal(t, []rbacv1.PolicyRule{
		{APIGroups: []string{""}, Resources: []string{"secrets"}, ResourceNames: []string{"sm-styrmin"}, Verbs: []string{"get", "update"}},
		{APIGroups: []string{""}, Resources: []string{"secrets"}, Verbs: []string{"create"}},
	}, role.Rules)
	require.Equal(t, rbacv1.Subject{Kind: "ServiceAccount", Name: "sm-styrmin-keys", Namespace: "ops"}, binding.Subjects[0])

	env := envOf(find[*appsv1.Deployment](r, "sm-styrmin-web").Spec.Template.Spec.Containers[0])
	require.Equal(t, corev1.SecretKeySelector{LocalObjectReference: corev1.LocalObjectReference{Name: "sm-styrmin"}, Key: "secret-key"}, *env["STYRMIN_SECRET_KEY"].ValueFrom.SecretKeyRef)
	require.Equal(t, corev1.SecretKeySelector{LocalObjectReference: corev1.LocalObjectReference{Name: "sm-styrmin"}, Key: "admin-password"}, *env["STYRMIN_ADMIN_PASSWORD"].ValueFrom.SecretKeyRef)
	require.Equal(t, corev1.SecretKeySelector{LocalObjectReference: corev1.LocalObjectReference{Name: "sm-styrmin-database"}, Key: "database-url"}, *env["STYRMIN_DATABASE_URL"].ValueFrom.SecretKeyRef)
}

// TestChartTakesAnExistingSecret: with existingSecret every key comes from
// it, and the chart makes no Secret, no hook and no RBAC for one.
func TestChartTakesAnExistingSecret(t *testing.T) {
	t.Parallel()
	r := render(t, map[string]any{"existingSecret": "mine"})
	require.Empty(t, all[*corev1.Secret](r), "nothing generated, nothing stored")
	require.Nil(t, find[*batchv1.Job](r, "sm-styrmin-keys"))
	require.Nil(t, find[*rbacv1.Role](r, "sm-styrmin-keys"), "no Role for the keys hook")
	require.Nil(t, find[*rbacv1.RoleBinding](r, "sm-styrmin-keys"))
	require.Nil(t, find[*corev1.ServiceAccount](r, "sm-styrmin-keys"))
	env := envOf(find[*appsv1.Deployment](r, "sm-styrmin-web").Spec.Template.Spec.Containers[0])
	for name, key := range map[string]string{"STYRMIN_DATABASE_URL": "database-url", "STYRMIN_SECRET_KEY": "secret-key", "STYRMIN_ADMIN_PASSWORD": "admin-password"} {
		require.Equal(t, corev1.SecretKeySelector{LocalObjectReference: corev1.LocalObjectReference{Name: "mine"}, Key: key}, *env[name].ValueFrom.SecretKeyRef, name)
	}
	test := find[*corev1.Pod](r, "sm-styrmin-test")
	require.Equal(t, "mine", test.Spec.Containers[0].Env[0].ValueFrom.SecretKeyRef.Name, "helm test signs in with the admin password there")
}

func TestChartNeedsExactlyOneDatabase(t *testing.T) {
	t.Parallel()
	for name, tc := range map[string]struct {
		values map[string]any
		want   string
	}{
		"none": {map[string]any{}, "set a database: database.url, existingSecret (its key database-url), or postgresql.enabled=true"},
		"two":  {map[string]any{"database": map[string]any{"url": "postgres://x/y"}, "postgresql": map[string]any{"enabled": true}}, "set one database: database.url or postgresql.enabled=true (evaluation only), not both"},
	} {
		t.Run(name, func(t *testing.T) {
			_, err := renderFiles(t, tc.values)
			require.ErrorContains(t, err, tc.want)
		})
	}
}

func TestChartEvaluationPostgreSQL(t *testing.T) {
	t.Parallel()
	r := render(t, map[string]any{"postgresql": map[string]any{"enabled": true}})
	sts := find[*appsv1.StatefulSet](r, "sm-styrmin-postgresql")
	require.NotNil(t, sts)
	c := sts.Spec.Template.Spec.Containers[0]
	require.Equal(t, "docker.io/library/postgres:15", c.Image)
	require.Equal(t, corev1.SecretKeySelector{LocalObjectReference: corev1.LocalObjectReference{Name: "sm-styrmin"}, Key: "postgresql-password"}, *envOf(c)["POSTGRES_PASSWORD"].ValueFrom.SecretKeyRef)
	require.Equal(t, []string{"chart-secret", "--name=sm-styrmin", "--postgresql-host=sm-styrmin-postgresql"},
		find[*batchv1.Job](r, "sm-styrmin-keys").Spec.Template.Spec.Containers[0].Args, "the hook makes the password and the URL on it")
	env := envOf(find[*appsv1.Deployment](r, "sm-styrmin-web").Spec.Template.Spec.Containers[0])
	require.Equal(t, corev1.SecretKeySelector{LocalObjectReference: corev1.LocalObjectReference{Name: "sm-styrmin"}, Key: "database-url"}, *env["STYRMIN_DATABASE_URL"].ValueFrom.SecretKeyRef)
	require.NotNil(t, find[*corev1.Service](r, "sm-styrmin-postgresql"))
}

func TestChartIngressWhenEnabled(t *testing.T) {
	t.Parallel()
	values := externalDB()
	values["ingress"] = map[string]any{"enabled": true, "host": "styrmin.corp", "tlsSecretName": "tls", "className": "nginx"}
	values["trustedProxies"] = []any{"10.244.0.0/16", "fd00::/8"}
	r := render(t, values)
	ing := all[*networkingv1.Ingress](r)
	require.Len(t, ing, 1)
	require.Equal(t, "styrmin.corp", ing[0].Spec.Rules[0].Host)
	require.Equal(t, "sm-styrmin", ing[0].Spec.Rules[0].HTTP.Paths[0].Backend.Service.Name)
	require.Equal(t, "tls", ing[0].Spec.TLS[0].SecretName)
	web := envOf(find[*appsv1.Deployment](r, "sm-styrmin-web").Spec.Template.Spec.Containers[0])
	require.Equal(t, "https://styrmin.corp", web["STYRMIN_EXTERNAL_URL"].Value, "the Ingress's host over TLS: Secure cookies, right links")
	require.Equal(t, "10.244.0.0/16,fd00::/8", web["STYRMIN_TRUSTED_PROXIES"].Value, "throttling keys on the client behind the controller")
	worker := envOf(find[*appsv1.Deployment](r, "sm-styrmin-worker").Spec.Template.Spec.Containers[0])
	require.Equal(t, "https://styrmin.corp", worker["STYRMIN_EXTERNAL_URL"].Value, "webhook deliveries link task pages under it")
}

// TestChartExternalURLAndTrustedProxies: without an Ingress neither is set
// unless given; an Ingress needs trustedProxies chosen (the chart cannot
// know the controller's network), [] included; externalURL wins over the
// Ingress's, and a plain-HTTP Ingress gives an http URL.
func TestChartExternalURLAndTrustedProxies(t *testing.T) {
	t.Parallel()
	webEnv := func(values map[string]any) map[string]corev1.EnvVar {
		return envOf(find[*appsv1.Deployment](render(t, values), "sm-styrmin-web").Spec.Template.Spec.Containers[0])
	}
	env := webEnv(externalDB())
	require.NotContains(t, env, "STYRMIN_EXTERNAL_URL")
	require.NotContains(t, env, "STYRMIN_TRUSTED_PROXIES")

	values := externalDB()
	values["ingress"] = map[string]any{"enabled": true, "host": "styrmin.corp"}
	_, err := renderFiles(t, values)
	require.ErrorContains(t, err, "with ingress.enabled, set trustedProxies to the CIDRs of the ingress controller's pods")

	values["trustedProxies"] = []any{}
	env = webEnv(values)
	require.Equal(t, "http://styrmin.corp", env["STYRMIN_EXTERNAL_URL"].Value)
	require.NotContains(t, env, "STYRMIN_TRUSTED_PROXIES", "[] believes no proxy")

	values["externalURL"] = "https://styrmin.example.org"
	require.Equal(t, "https://styrmin.example.org", webEnv(values)["STYRMIN_EXTERNAL_URL"].Value)
}

// TestChartMetrics: every pod serves /metrics, a headless Service selects
// the web and worker pods; the ServiceMonitor and the PrometheusRule come
// when asked.
func TestChartMetrics(t *testing.T) {
	t.Parallel()
	r := render(t, externalDB())
	svc := find[*corev1.Service](r, "sm-styrmin-metrics")
	require.NotNil(t, svc)
	require.Equal(t, "None", svc.Spec.ClusterIP)
	for _, name := range []string{"sm-styrmin-web", "sm-styrmin-worker"} {
		d := find[*appsv1.Deployment](r, name)
		selected := labels.SelectorFromSet(svc.Spec.Selector).Matches(labels.Set(d.Spec.Template.Labels))
		require.True(t, selected, "%s's pods are scraped", name)
		require.Equal(t, "0.0.0.0:9090", envOf(d.Spec.Template.Spec.Containers[0])["STYRMIN_METRICS_ADDR"].Value)
	}
	require.Empty(t, all[*unstructured.Unstructured](r), "no Prometheus Operator objects unless asked")

	values := externalDB()
	values["metrics"] = map[string]any{"port": 9100, "serviceMonitor": map[string]any{"enabled": true, "labels": map[string]any{"release": "prom"}},
		"prometheusRule": map[string]any{"enabled": true}}
	r = render(t, values)
	monitor := findKind(r, "ServiceMonitor", "sm-styrmin-metrics")
	require.NotNil(t, monitor)
	require.Equal(t, "prom", monitor.GetLabels()["release"])
	selector, _, err := unstructured.NestedStringMap(monitor.Object, "spec", "selector", "matchLabels")
	require.NoError(t, err)
	svc = find[*corev1.Service](r, "sm-styrmin-metrics")
	require.True(t, labels.SelectorFromSet(selector).Matches(labels.Set(svc.Labels)), "the ServiceMonitor selects the metrics Service")
	require.EqualValues(t, 9100, svc.Spec.Ports[0].Port)
}

// TestChartAlertsReadExportedSeriesOfTheirRelease: every alert of the
// PrometheusRule reads only series the metrics registry exports, and only
// this release's (its metrics Service's job).
func TestChartAlertsReadExportedSeriesOfTheirRelease(t *testing.T) {
	t.Parallel()
	values := externalDB()
	values["metrics"] = map[string]any{"prometheusRule": map[string]any{"enabled": true}}
	rule := findKind(render(t, values), "PrometheusRule", "sm-styrmin-metrics")
	require.NotNil(t, rule)
	groups, _, err := unstructured.NestedSlice(rule.Object, "spec", "groups")
	require.NoError(t, err)
	exported := metricstest.Exported(t)
	var alerts []string
	for _, g := range groups {
		for _, r := range g.(map[string]any)["rules"].([]any) {
			rule := r.(map[string]any)
			alerts = append(alerts, rule["alert"].(string))
			expr := rule["expr"].(string)
			if expr != `up{job="sm-styrmin-metrics"} == 0` {
				metricstest.RequireExported(t, exported, expr)
			}
			metricstest.RequireEverySelectorHas(t, expr, `job="sm-styrmin-metrics"`)
		}
	}
	require.Contains(t, alerts, "StyrminTasksWaiting")
	require.Contains(t, alerts, "StyrminDown")
	require.Len(t, alerts, 8)
}

// TestChartTestPodProbesTheService: `helm test` runs the image's `styrmin
// probe` against the Service, signing in with the admin's password.
func TestChartTestPodProbesTheService(t *testing.T) {
	t.Parallel()
	pod := find[*corev1.Pod](render(t, externalDB()), "sm-styrmin-test")
	require.NotNil(t, pod)
	require.Equal(t, "test", pod.Annotations["helm.sh/hook"])
	c := pod.Spec.Containers[0]
	require.Equal(t, "styrmin.local/styrmin:"+loadChart(t).Metadata.AppVersion, c.Image, "the Styrmin image of the chart's version")
	require.Equal(t, []string{"probe", "http://sm-styrmin:80"}, c.Args)
	require.Equal(t, corev1.SecretKeySelector{LocalObjectReference: corev1.LocalObjectReference{Name: "sm-styrmin"}, Key: "admin-password"}, *envOf(c)["STYRMIN_ADMIN_PASSWORD"].ValueFrom.SecretKeyRef)
}
