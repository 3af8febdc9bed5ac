package devcluster_test

import (
	"context"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/styrmin/styrmin/drivers"
	"github.com/styrmin/styrmin/drivers/bundled"
	"github.com/styrmin/styrmin/kube"
	"github.com/styrmin/styrmin/release"
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
	for _, name := range bundled.Names() {
		require.True(t, covered[name], "bundled driver %s has no case here: add one", name)
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			client, ns := setup(t)
			ctx := context.Background()
			b, err := drivers.LoadBundle(t.Context(), bundled.Bundles(), tt.driver)
			require.NoError(t, err)
			require.NotNil(t, b.Chart, "%s ships its chart in the bundle", tt.driver)
			name := tt.driver
			values := renderDefaultValues(t, b.Driver, b.Chart.Metadata.AppVersion, ns, name, tt.overrides)

			releases := releaseClient(t, client)
			rel, err := releases.Install(ctx, release.InstallOptions{
				Namespace: ns, Name: name, Owner: owner, Chart: b.Chart, Values: values, Wait: true, Timeout: installTimeout,
			})
			require.NoError(t, err)
			require.Equal(t, release.StatusDeployed, rel.Status)

			for _, c := range b.Driver.Spec.Components {
				requireReadyComponent(t, client, ns, name, c)
			}
			for _, s := range b.Driver.Spec.Services {
				requireService(t, client, ns, name, b.Driver, s)
			}
			volumes := requireBoundClaims(t, client, ns)
			require.Equal(t, tt.wantVolumes, len(volumes) > 0, "bound volumes: %v", volumes)

			_, err = releases.Uninstall(ctx, release.UninstallOptions{Namespace: ns, Name: name, Owner: owner, Wait: true, Timeout: installTimeout})
			require.NoError(t, err)
			requireVolumesReclaimed(t, client, ns, volumes)
		})
	}
}

// renderDefaultValues renders d's values as an install with every parameter at
// its default does, secrets set to testPassword, then overrides applied.
func renderDefaultValues(t *testing.T, d *drivers.Driver, version, ns, name string, overrides map[string]any) map[string]any {
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
	values, err := release.Values(t.Context(), d, params, version, ns, name)
	require.NoError(t, err)
	return values
}

// componentWorkload is the one workload of release whose pods c's selector matches.
func componentWorkload(t *testing.T, client *kube.Client, ns, name string, c drivers.Component) kube.Workload {
	t.Helper()
	matched, err := client.ComponentWorkloads(context.Background(), ns, name, c)
	require.NoError(t, err)
	require.Len(t, matched, 1, "component %s must match exactly one Deployment or StatefulSet of release %s", c.Name, name)
	return matched[0]
}

// requireReadyComponent checks that c runs its default replicas (when it has
// one), at least one, all ready.
func requireReadyComponent(t *testing.T, client *kube.Client, ns, name string, c drivers.Component) {
	t.Helper()
	w := componentWorkload(t, client, ns, name, c)
	if c.Defaults.Replicas != nil {
		require.Equal(t, int32(*c.Defaults.Replicas), w.Replicas, "%s %s runs the component's default replicas", w.Kind, w.Name)
	}
	require.Positive(t, w.Replicas, "%s %s", w.Kind, w.Name)
	require.True(t, w.Ready(), w.Waiting)
}

// requireService checks that a Service of release exposes s's port to the pods of s's component.
func requireService(t *testing.T, client *kube.Client, ns, name string, d *drivers.Driver, s drivers.Service) {
	t.Helper()
	var component *drivers.Component
	for i := range d.Spec.Components {
		if d.Spec.Components[i].Name == s.Component {
			component = &d.Spec.Components[i]
		}
	}
	require.NotNil(t, component, "service %s names component %s", s.Name, s.Component)
	services, err := client.ReleaseServices(context.Background(), ns, name)
	require.NoError(t, err)
	workloads := []kube.Workload{componentWorkload(t, client, ns, name, *component)}
	_, ok := kube.ComponentService(services, workloads, int32(s.Port), string(s.EffectiveProtocol()))
	require.True(t, ok, "no Service of release %s exposes port %d/%s to component %s (spec service %s)",
		name, s.Port, s.EffectiveProtocol(), s.Component, s.Name)
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
