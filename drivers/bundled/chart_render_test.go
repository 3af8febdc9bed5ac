package bundled_test

import (
	"path"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
	"helm.sh/helm/v3/pkg/chart"
	"helm.sh/helm/v3/pkg/chartutil"
	"helm.sh/helm/v3/pkg/engine"
	"helm.sh/helm/v3/pkg/releaseutil"
	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/serializer"
	"k8s.io/apimachinery/pkg/util/validation"
	"k8s.io/client-go/kubernetes/scheme"

	"github.com/styrmin/styrmin/drivers"
)

// renderManifests renders a chart as a fresh install of the release in namespace
// "apps" and decodes every manifest strictly, as an API server would reject unknown
// fields or wrongly typed values.
func renderManifests(t *testing.T, ch *chart.Chart, release string, values map[string]any) []runtime.Object {
	t.Helper()
	renderValues, err := chartutil.ToRenderValues(ch, values,
		chartutil.ReleaseOptions{Name: release, Namespace: "apps", Revision: 1, IsInstall: true},
		chartutil.DefaultCapabilities)
	require.NoError(t, err)
	rendered, err := engine.Engine{Strict: true}.Render(ch, renderValues)
	require.NoError(t, err)

	decoder := serializer.NewCodecFactory(scheme.Scheme, serializer.EnableStrict).UniversalDeserializer()
	var objects []runtime.Object
	for name, content := range rendered {
		if strings.HasPrefix(path.Base(name), "_") || strings.TrimSpace(content) == "" {
			continue
		}
		for _, doc := range releaseutil.SplitManifests(content) {
			if strings.TrimSpace(doc) == "" {
				continue
			}
			obj, _, err := decoder.Decode([]byte(doc), nil, nil)
			require.NoError(t, err, "%s:\n%s", name, doc)
			objects = append(objects, obj)
		}
	}
	return objects
}

// workload is a Deployment or StatefulSet reduced to what the checks need.
type workload struct {
	name           string
	labels         map[string]string
	selector       *metav1.LabelSelector
	podLabels      map[string]string
	pod            corev1.PodSpec
	claimTemplates []corev1.PersistentVolumeClaim
}

// manifests sorts decoded objects by kind.
type manifests struct {
	workloads  []workload
	services   []*corev1.Service
	secrets    []*corev1.Secret
	configMaps []*corev1.ConfigMap
	kinds      map[string]int
}

func sortManifests(t *testing.T, objects []runtime.Object) manifests {
	t.Helper()
	m := manifests{kinds: map[string]int{}}
	for _, obj := range objects {
		switch o := obj.(type) {
		case *appsv1.Deployment:
			m.kinds["Deployment"]++
			m.workloads = append(m.workloads, workload{o.Name, o.Labels, o.Spec.Selector, o.Spec.Template.Labels, o.Spec.Template.Spec, nil})
		case *appsv1.StatefulSet:
			m.kinds["StatefulSet"]++
			m.workloads = append(m.workloads, workload{o.Name, o.Labels, o.Spec.Selector, o.Spec.Template.Labels, o.Spec.Template.Spec, o.Spec.VolumeClaimTemplates})
		case *corev1.Service:
			m.kinds["Service"]++
			m.services = append(m.services, o)
		case *corev1.Secret:
			m.kinds["Secret"]++
			m.secrets = append(m.secrets, o)
		case *corev1.ConfigMap:
			m.kinds["ConfigMap"]++
			m.configMaps = append(m.configMaps, o)
		default:
			t.Fatalf("unexpected object %T: add a check for it", obj)
		}
	}
	return m
}

// requireValidNames checks the names and labels the API server validates.
func requireValidNames(t *testing.T, objects []runtime.Object) {
	t.Helper()
	for _, obj := range objects {
		accessor, err := meta.Accessor(obj)
		require.NoError(t, err)
		name := accessor.GetName()
		require.Empty(t, validation.IsDNS1123Subdomain(name), "name %q of %T", name, obj)
		switch obj.(type) {
		case *corev1.Service:
			require.Empty(t, validation.IsDNS1035Label(name), "Service name %q", name)
		case *appsv1.StatefulSet:
			// The controller-revision-hash label is <name>-<10 characters>.
			require.LessOrEqual(t, len(name), 52, "StatefulSet name %q", name)
		}
		for key, value := range accessor.GetLabels() {
			require.Empty(t, validation.IsQualifiedName(key), "label key %q of %s", key, name)
			require.Empty(t, validation.IsValidLabelValue(value), "label %s=%q of %s", key, value, name)
		}
	}
}

// requireConsistentWorkloads checks selectors, resource requests and references.
func requireConsistentWorkloads(t *testing.T, m manifests) {
	t.Helper()
	secrets := map[string]bool{}
	for _, s := range m.secrets {
		secrets[s.Name] = true
	}
	configMaps := map[string]bool{}
	for _, c := range m.configMaps {
		configMaps[c.Name] = true
	}
	for _, w := range m.workloads {
		selector, err := metav1.LabelSelectorAsSelector(w.selector)
		require.NoError(t, err, w.name)
		require.True(t, selector.Matches(labels.Set(w.podLabels)), "%s: selector %s does not match its pod labels", w.name, selector)
		for _, c := range w.pod.Containers {
			require.False(t, c.Resources.Requests.Cpu().IsZero(), "%s/%s: no CPU request", w.name, c.Name)
			require.False(t, c.Resources.Requests.Memory().IsZero(), "%s/%s: no memory request", w.name, c.Name)
			for _, env := range c.Env {
				if env.ValueFrom != nil && env.ValueFrom.SecretKeyRef != nil {
					require.True(t, secrets[env.ValueFrom.SecretKeyRef.Name], "%s: env %s refers to a missing Secret", w.name, env.Name)
				}
			}
		}
		mounts := map[string]bool{}
		for _, claim := range w.claimTemplates {
			mounts[claim.Name] = true
		}
		for _, v := range w.pod.Volumes {
			mounts[v.Name] = true
			if v.ConfigMap != nil {
				require.True(t, configMaps[v.ConfigMap.Name], "%s: volume %s refers to a missing ConfigMap", w.name, v.Name)
			}
		}
		for _, c := range w.pod.Containers {
			for _, vm := range c.VolumeMounts {
				require.True(t, mounts[vm.Name], "%s/%s: mount of undeclared volume %s", w.name, c.Name, vm.Name)
			}
		}
	}
}

// requireComponentsMatch checks that each component selects exactly one workload
// (its object and its pods) and each workload belongs to exactly one component.
func requireComponentsMatch(t *testing.T, d *drivers.Driver, m manifests) {
	t.Helper()
	owners := map[string]int{}
	for _, c := range d.Spec.Components {
		selector := componentSelector(t, c)
		var matched []string
		for _, w := range m.workloads {
			if selector.Matches(labels.Set(w.labels)) {
				require.True(t, selector.Matches(labels.Set(w.podLabels)), "component %s selects %s but not its pods", c.Name, w.name)
				matched = append(matched, w.name)
				owners[w.name]++
			}
		}
		require.Len(t, matched, 1, "component %s selects %v", c.Name, matched)
	}
	for _, w := range m.workloads {
		require.Equal(t, 1, owners[w.name], "workload %s belongs to %d components", w.name, owners[w.name])
	}
}

// requireServicesExposed checks that each driver service has a Kubernetes Service
// on its port that selects the pods of the service's component.
func requireServicesExposed(t *testing.T, d *drivers.Driver, m manifests) {
	t.Helper()
	components := map[string]labels.Selector{}
	for _, c := range d.Spec.Components {
		components[c.Name] = componentSelector(t, c)
	}
	for _, s := range d.Spec.Services {
		exposed := false
		for _, svc := range m.services {
			if svc.Spec.ClusterIP == corev1.ClusterIPNone {
				continue
			}
			for _, w := range m.workloads {
				selects := labels.SelectorFromSet(svc.Spec.Selector).Matches(labels.Set(w.podLabels))
				if selects && components[s.Component].Matches(labels.Set(w.labels)) && hasPort(svc, s.Port) {
					exposed = true
				}
			}
		}
		require.True(t, exposed, "driver service %s: no Service on port %d selects component %s", s.Name, s.Port, s.Component)
	}
}

func hasPort(svc *corev1.Service, port int) bool {
	for _, p := range svc.Spec.Ports {
		if int(p.Port) == port {
			return true
		}
	}
	return false
}

// componentSelector is the Kubernetes selector of component c.
func componentSelector(t *testing.T, c drivers.Component) labels.Selector {
	t.Helper()
	selector, err := c.Selector.Kubernetes()
	require.NoError(t, err, "selector of component %s", c.Name)
	return selector
}
