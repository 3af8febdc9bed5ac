package kubelocal_test

import (
	"context"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	"helm.sh/helm/v3/pkg/action"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/labels"

	"github.com/styrmin/styrmin/drivers"
	"github.com/styrmin/styrmin/drivers/catalog"
	"github.com/styrmin/styrmin/kube"
)

// testPassword is the value every secret parameter gets.
const testPassword = "s3cret-test-password"

// installTimeout bounds Helm's wait for a bundled chart to become ready.
const installTimeout = 3 * time.Minute

// TestBundledDriversInstallAndBecomeReady installs every bundled driver's chart
// with the values Styrmin renders from the parameter defaults, waits for it like
// Styrmin does, and checks what the spec promises: each component's selector
// finds one ready workload of the release, each service has a Kubernetes
// Service on its port. Volume claims (postgresql, redis with persistence) must
// be bound by the local cluster's volume provisioner.
func TestBundledDriversInstallAndBecomeReady(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name, driver string
		overrides    map[string]any
		wantVolumes  bool
	}{
		{"hello-web", "hello-web", nil, false},
		{"postgresql", "postgresql", nil, true},
		{"redis", "redis", nil, false},
		{"redis-persistent", "redis", map[string]any{"persistence": true}, true},
	}
	covered := map[string]bool{}
	for _, tt := range tests {
		covered[tt.driver] = true
	}
	for _, name := range catalog.Names() {
		require.True(t, covered[name], "bundled driver %s has no case here: add one", name)
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			client, kubeconfig, ns := setup(t)
			ctx := context.Background()
			b, err := drivers.LoadBundle(t.Context(), catalog.Bundles(), tt.driver)
			require.NoError(t, err)
			require.NotNil(t, b.Chart, "%s ships its chart in the bundle", tt.driver)
			release := tt.driver
			values := renderDefaultValues(t, b.Driver, b.Chart.Metadata.AppVersion, ns, release, tt.overrides)

			cfg := helmConfig(t, kubeconfig, ns)
			install := action.NewInstall(cfg)
			install.ReleaseName, install.Namespace = release, ns
			install.Wait, install.Timeout = true, installTimeout
			rel, err := install.RunWithContext(ctx, b.Chart, values)
			require.NoError(t, err)
			require.Equal(t, "deployed", rel.Info.Status.String())

			for _, c := range b.Driver.Spec.Components {
				requireReadyComponent(t, client, ns, release, c)
			}
			for _, s := range b.Driver.Spec.Services {
				requireService(t, client, ns, release, b.Driver, s)
			}
			volumes := requireBoundClaims(t, client, ns)
			require.Equal(t, tt.wantVolumes, len(volumes) > 0, "bound volumes: %v", volumes)

			uninstall := action.NewUninstall(cfg)
			uninstall.Wait, uninstall.Timeout = true, installTimeout
			_, err = uninstall.Run(release)
			require.NoError(t, err)
			requireVolumesReclaimed(t, client, ns, volumes)
		})
	}
}

// renderDefaultValues renders d's values as an install with every parameter at
// its default does, secrets set to testPassword, then overrides applied.
func renderDefaultValues(t *testing.T, d *drivers.Driver, version, ns, release string, overrides map[string]any) map[string]any {
	t.Helper()
	params := d.DefaultValues()
	for i := range d.Spec.Parameters {
		p := &d.Spec.Parameters[i]
		if p.Type == drivers.TypeSecret {
			params[p.Name] = testPassword
		}
		if v, ok := overrides[p.Name]; ok {
			checked, err := p.Check(v)
			require.NoError(t, err, "override of %s", p.Name)
			params[p.Name] = checked
		}
		require.Contains(t, params, p.Name, "parameter %s has a value", p.Name)
	}
	values, err := d.RenderValues(t.Context(), drivers.ValuesData{
		Parameters: params,
		Version:    version,
		Deployment: drivers.DeploymentRef{Name: release, Namespace: ns, Release: release},
		Driver:     drivers.DriverRef{Name: d.Metadata.Name, Version: d.Spec.Version},
	})
	require.NoError(t, err)
	return values
}

// workload is a Deployment or StatefulSet reduced to what the checks need.
type workload struct {
	kind, name        string
	podLabels         map[string]string
	replicas, ready   int32
	releaseAnnotation string
}

func workloads(t *testing.T, client *kube.Client, ns string) []workload {
	t.Helper()
	ctx := context.Background()
	var all []workload
	deployments, err := client.Clientset.AppsV1().Deployments(ns).List(ctx, metav1.ListOptions{})
	require.NoError(t, err)
	for _, d := range deployments.Items {
		all = append(all, workload{"Deployment", d.Name, d.Spec.Template.Labels, *d.Spec.Replicas, d.Status.ReadyReplicas, d.Annotations[releaseNameAnnotation]})
	}
	statefulSets, err := client.Clientset.AppsV1().StatefulSets(ns).List(ctx, metav1.ListOptions{})
	require.NoError(t, err)
	for _, s := range statefulSets.Items {
		all = append(all, workload{"StatefulSet", s.Name, s.Spec.Template.Labels, *s.Spec.Replicas, s.Status.ReadyReplicas, s.Annotations[releaseNameAnnotation]})
	}
	return all
}

// releaseNameAnnotation is set by Helm on every object of a release.
const releaseNameAnnotation = "meta.helm.sh/release-name"

// componentWorkload is the one workload of release whose pods c's selector matches.
func componentWorkload(t *testing.T, client *kube.Client, ns, release string, c drivers.Component) workload {
	t.Helper()
	selector := componentSelector(t, c)
	var matched []workload
	for _, w := range workloads(t, client, ns) {
		if w.releaseAnnotation == release && selector.Matches(labels.Set(w.podLabels)) {
			matched = append(matched, w)
		}
	}
	require.Len(t, matched, 1, "component %s (selector %s) must match exactly one Deployment or StatefulSet of release %s", c.Name, selector, release)
	return matched[0]
}

func requireReadyComponent(t *testing.T, client *kube.Client, ns, release string, c drivers.Component) {
	t.Helper()
	w := componentWorkload(t, client, ns, release, c)
	if c.Defaults.Replicas != nil {
		require.Equal(t, int32(*c.Defaults.Replicas), w.replicas, "%s %s runs the component's default replicas", w.kind, w.name)
	}
	require.Positive(t, w.replicas, "%s %s", w.kind, w.name)
	require.Equal(t, w.replicas, w.ready, "%s %s ready replicas", w.kind, w.name)
}

// requireService checks that a Service of release exposes s's port to the pods of s's component.
func requireService(t *testing.T, client *kube.Client, ns, release string, d *drivers.Driver, s drivers.Service) {
	t.Helper()
	var component *drivers.Component
	for i := range d.Spec.Components {
		if d.Spec.Components[i].Name == s.Component {
			component = &d.Spec.Components[i]
		}
	}
	require.NotNil(t, component, "service %s names component %s", s.Name, s.Component)
	pods := labels.Set(componentWorkload(t, client, ns, release, *component).podLabels)
	services, err := client.Clientset.CoreV1().Services(ns).List(context.Background(), metav1.ListOptions{})
	require.NoError(t, err)
	for _, svc := range services.Items {
		if svc.Annotations[releaseNameAnnotation] != release || len(svc.Spec.Selector) == 0 ||
			!labels.SelectorFromSet(svc.Spec.Selector).Matches(pods) {
			continue
		}
		for _, p := range svc.Spec.Ports {
			if int(p.Port) == s.Port && string(p.Protocol) == string(s.EffectiveProtocol()) {
				return
			}
		}
	}
	require.Failf(t, "service missing", "no Service of release %s exposes port %d/%s to component %s (spec service %s)",
		release, s.Port, s.EffectiveProtocol(), s.Component, s.Name)
}

// componentSelector is the Kubernetes selector of component c.
func componentSelector(t *testing.T, c drivers.Component) labels.Selector {
	t.Helper()
	selector, err := c.Selector.Kubernetes()
	require.NoError(t, err, "selector of component %s", c.Name)
	return selector
}

// requireBoundClaims checks that every PersistentVolumeClaim in ns is bound to a
// volume of its size and returns the volume names.
func requireBoundClaims(t *testing.T, client *kube.Client, ns string) []string {
	t.Helper()
	ctx := context.Background()
	claims, err := client.Clientset.CoreV1().PersistentVolumeClaims(ns).List(ctx, metav1.ListOptions{})
	require.NoError(t, err)
	var volumes []string
	for _, claim := range claims.Items {
		require.Equal(t, corev1.ClaimBound, claim.Status.Phase, "claim %s", claim.Name)
		pv, err := client.Clientset.CoreV1().PersistentVolumes().Get(ctx, claim.Spec.VolumeName, metav1.GetOptions{})
		require.NoError(t, err)
		require.Equal(t, claim.UID, pv.Spec.ClaimRef.UID, "volume %s belongs to claim %s", pv.Name, claim.Name)
		want := claim.Spec.Resources.Requests[corev1.ResourceStorage]
		got := pv.Spec.Capacity[corev1.ResourceStorage]
		require.Zero(t, want.Cmp(got), "volume %s capacity %s, claim %s requests %s", pv.Name, got.String(), claim.Name, want.String())
		volumes = append(volumes, pv.Name)
	}
	return volumes
}

// requireVolumesReclaimed deletes the claims left in ns (StatefulSet claims
// outlive the release) and waits for the provisioner to remove their volumes.
func requireVolumesReclaimed(t *testing.T, client *kube.Client, ns string, volumes []string) {
	t.Helper()
	err := client.Clientset.CoreV1().PersistentVolumeClaims(ns).DeleteCollection(context.Background(), metav1.DeleteOptions{}, metav1.ListOptions{})
	require.NoError(t, err)
	for _, name := range volumes {
		eventually(t, "volume "+name+" to be removed", func(ctx context.Context) (bool, error) {
			_, err := client.Clientset.CoreV1().PersistentVolumes().Get(ctx, name, metav1.GetOptions{})
			return err != nil, ignoreNotFound(err)
		})
	}
}
