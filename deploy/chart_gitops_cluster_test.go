package deploy_test

import (
	"cmp"
	"context"
	"maps"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/client-go/discovery"
	"k8s.io/client-go/discovery/cached/memory"
	"k8s.io/client-go/dynamic"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/rest"
	"k8s.io/client-go/restmapper"
	"sigs.k8s.io/yaml"
)

// gitopsNamespace is where the cluster test applies the chart as Argo CD does.
const gitopsNamespace = "styrmin-gitops"

// manifest is one rendered object and its place in an Argo CD sync.
type manifest struct {
	obj *unstructured.Unstructured
	// phase is Argo CD's: PreSync (Helm's pre-install and pre-upgrade
	// hooks), Sync (the rest), or "" for what it does not apply (helm test).
	phase  string
	weight int
}

// argoManifests renders the chart client-side, as Argo CD and Flux do with
// `helm template` (no cluster, no lookup), and sorts its objects into Argo
// CD's phases by Helm's hook annotations and weights.
func argoManifests(t *testing.T, values map[string]any) []manifest {
	t.Helper()
	files, err := renderRelease(t, "styrmin", gitopsNamespace, values)
	require.NoError(t, err)
	var out []manifest
	for _, name := range slices.Sorted(maps.Keys(files)) {
		if !strings.HasSuffix(name, ".yaml") {
			continue
		}
		for _, doc := range manifestDocs(files[name]) { // in the file's order, as Argo CD reads it
			u := &unstructured.Unstructured{}
			require.NoError(t, yaml.Unmarshal([]byte(doc), &u.Object), "%s", name)
			if len(u.Object) == 0 {
				continue
			}
			m := manifest{obj: u, phase: "Sync"}
			if hook := u.GetAnnotations()["helm.sh/hook"]; hook != "" {
				m.phase = ""
				if strings.Contains(hook, "pre-install") || strings.Contains(hook, "pre-upgrade") {
					m.phase = "PreSync"
				}
				if w := u.GetAnnotations()["helm.sh/hook-weight"]; w != "" {
					m.weight, err = strconv.Atoi(w)
					require.NoError(t, err)
				}
			}
			out = append(out, m)
		}
	}
	slices.SortStableFunc(out, func(a, b manifest) int { return a.weight - b.weight })
	return out
}

// applyAsArgoCD installs Styrmin in gitopsNamespace as Argo CD syncs a Helm
// chart: the PreSync hooks by weight (the keys Job must succeed), then
// every other object with server-side apply; then checks that Styrmin
// comes up: its web and worker are ready, and the chart's test pod signs in
// and reads /readyz. It deletes what it made when the test ends.
func (r chartRelease) applyAsArgoCD(t *testing.T, image string) {
	t.Helper()
	ctx := context.Background()
	g := r
	g.ns = gitopsNamespace
	values := r.values(image)
	values["web"] = map[string]any{"replicas": 1}
	values["podDisruptionBudget"] = map[string]any{"enabled": false}
	// Argo CD runs pre-upgrade hooks on the first sync too, before the
	// evaluation PostgreSQL exists: the pods migrate themselves instead.
	values["migrations"] = map[string]any{"hook": false}
	manifests := argoManifests(t, values)

	dyn, err := dynamic.NewForConfig(r.rest)
	require.NoError(t, err)
	disc, err := discovery.NewDiscoveryClientForConfig(r.rest)
	require.NoError(t, err)
	mapper := restmapper.NewDeferredDiscoveryRESTMapper(memory.NewMemCacheClient(disc))
	_, err = r.kube.CoreV1().Namespaces().Create(ctx, &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: gitopsNamespace}}, metav1.CreateOptions{})
	require.NoError(t, err)
	var clusterScoped []func()
	t.Cleanup(func() {
		for _, del := range clusterScoped {
			del()
		}
		_ = r.kube.CoreV1().Namespaces().Delete(ctx, gitopsNamespace, metav1.DeleteOptions{})
	})
	apply := func(u *unstructured.Unstructured) {
		t.Helper()
		gvk := u.GroupVersionKind()
		mapping, err := mapper.RESTMapping(gvk.GroupKind(), gvk.Version)
		require.NoError(t, err, "%s", gvk)
		var res dynamic.ResourceInterface = dyn.Resource(mapping.Resource)
		if mapping.Scope.Name() == meta.RESTScopeNameNamespace {
			// Argo CD applies an object to its own namespace when it names
			// one (the deployers' namespace's), else to the application's.
			res = dyn.Resource(mapping.Resource).Namespace(cmp.Or(u.GetNamespace(), gitopsNamespace))
		} else {
			clusterScoped = append(clusterScoped, func() { _ = res.Delete(ctx, u.GetName(), metav1.DeleteOptions{}) })
		}
		_, err = res.Apply(ctx, u.GetName(), u, metav1.ApplyOptions{FieldManager: "argocd-controller", Force: true})
		require.NoError(t, err, "apply %s %s", gvk.Kind, u.GetName())
	}

	var keysJob string
	for _, m := range manifests {
		if m.phase != "PreSync" {
			continue
		}
		apply(m.obj)
		if m.obj.GetKind() == "Job" {
			keysJob = m.obj.GetName()
			g.poll(t, "the PreSync Job "+keysJob+" succeeds", func() bool {
				job, err := r.kube.BatchV1().Jobs(gitopsNamespace).Get(ctx, keysJob, metav1.GetOptions{})
				require.NoError(t, err)
				require.Zero(t, job.Status.Failed, "the keys Job failed")
				return job.Status.Succeeded > 0
			})
		}
	}
	require.Equal(t, "styrmin-keys", keysJob, "the keys are made in PreSync")
	keys, err := r.kube.CoreV1().Secrets(gitopsNamespace).Get(ctx, "styrmin", metav1.GetOptions{})
	require.NoError(t, err, "the hook made the Secret")
	require.Len(t, keys.Data["admin-password"], 24)
	r.requireKeysHookReadsOnlyItsSecret(t)

	var test *unstructured.Unstructured
	for _, m := range manifests {
		switch {
		case m.phase == "Sync":
			apply(m.obj)
		case m.obj.GetAnnotations()["helm.sh/hook"] == "test":
			test = m.obj
		}
	}
	g.waitReady(t, "styrmin-web", 1, image)
	g.waitReady(t, "styrmin-worker", 1, image)

	require.NotNil(t, test, "the chart has a test pod")
	apply(test)
	var pod *corev1.Pod
	g.poll(t, "the chart's test pod ends", func() bool {
		pod, err = r.kube.CoreV1().Pods(gitopsNamespace).Get(ctx, test.GetName(), metav1.GetOptions{})
		return err == nil && (pod.Status.Phase == corev1.PodSucceeded || pod.Status.Phase == corev1.PodFailed)
	})
	if pod.Status.Phase != corev1.PodSucceeded {
		g.dump(t)
		t.Fatalf("the test pod (styrmin probe) failed: %s", pod.Status.Phase)
	}

	// The next sync runs the PreSync hooks again (before-hook-creation:
	// the old Job is deleted first): the keys stay as they are.
	propagation := metav1.DeletePropagationForeground
	require.NoError(t, r.kube.BatchV1().Jobs(gitopsNamespace).Delete(ctx, keysJob, metav1.DeleteOptions{PropagationPolicy: &propagation}))
	g.poll(t, "the first keys Job is gone", func() bool {
		_, err := r.kube.BatchV1().Jobs(gitopsNamespace).Get(ctx, keysJob, metav1.GetOptions{})
		return apierrors.IsNotFound(err)
	})
	for _, m := range manifests {
		if m.phase == "PreSync" && m.obj.GetKind() == "Job" {
			apply(m.obj)
		}
	}
	g.poll(t, "the second keys Job succeeds", func() bool {
		job, err := r.kube.BatchV1().Jobs(gitopsNamespace).Get(ctx, keysJob, metav1.GetOptions{})
		return err == nil && job.Status.Succeeded > 0
	})
	again, err := r.kube.CoreV1().Secrets(gitopsNamespace).Get(ctx, "styrmin", metav1.GetOptions{})
	require.NoError(t, err)
	require.Equal(t, keys.Data, again.Data, "a second sync keeps every key")
}

// requireKeysHookReadsOnlyItsSecret acts as the keys hook's ServiceAccount
// (what its pod's token allows) and tries to read a Secret of the namespace
// other than the keys': Kubernetes refuses it, and lets it read its own.
func (r chartRelease) requireKeysHookReadsOnlyItsSecret(t *testing.T) {
	t.Helper()
	ctx := context.Background()
	_, err := r.kube.CoreV1().Secrets(gitopsNamespace).Create(ctx, &corev1.Secret{ObjectMeta: metav1.ObjectMeta{Name: "someone-elses"},
		StringData: map[string]string{"password": "not the hook's"}}, metav1.CreateOptions{})
	require.NoError(t, err)
	as := rest.CopyConfig(r.rest)
	as.Impersonate = rest.ImpersonationConfig{UserName: "system:serviceaccount:" + gitopsNamespace + ":styrmin-keys"}
	hook, err := kubernetes.NewForConfig(as)
	require.NoError(t, err)
	_, err = hook.CoreV1().Secrets(gitopsNamespace).Get(ctx, "someone-elses", metav1.GetOptions{})
	require.True(t, apierrors.IsForbidden(err), "the hook cannot read another Secret: %v", err)
	_, err = hook.CoreV1().Secrets(gitopsNamespace).List(ctx, metav1.ListOptions{})
	require.True(t, apierrors.IsForbidden(err), "nor list them: %v", err)
	_, err = hook.CoreV1().Secrets(gitopsNamespace).Get(ctx, "styrmin", metav1.GetOptions{})
	require.NoError(t, err, "it reads its own")
}
