package handlerstest

import (
	"testing"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/client-go/kubernetes/fake"

	"github.com/styrmin/styrmin/deployment"
	"github.com/styrmin/styrmin/kube"
	"github.com/styrmin/styrmin/release/releasetest"
)

// FakeCluster is a cluster of Helm's in-memory releases and a fake
// Kubernetes API that holds objects.
func FakeCluster(t *testing.T, objects ...runtime.Object) *deployment.Cluster {
	t.Helper()
	return &deployment.Cluster{Releases: releasetest.New(t).Client, Kube: &kube.Client{Clientset: fake.NewClientset(objects...)}}
}

// PgSubstituted are the StatefulSet of the primary component of
// PgInstall(name) and two of its pods, each carrying the local cluster's
// image substitution annotation with the value annotation.
func PgSubstituted(name, annotation string) []runtime.Object {
	statefulSet := pgStatefulSet(name)
	labels := statefulSet.Spec.Template.Labels
	objects := []runtime.Object{statefulSet}
	for _, pod := range []string{"-0", "-1"} {
		objects = append(objects, &corev1.Pod{ObjectMeta: metav1.ObjectMeta{Name: statefulSet.Name + pod, Namespace: name, Labels: labels,
			Annotations: map[string]string{kube.ImageSubstitutionAnnotation: annotation}}})
	}
	return objects
}

// pgStatefulSet is the StatefulSet of the primary component of PgInstall(name).
func pgStatefulSet(name string) *appsv1.StatefulSet {
	labels := map[string]string{"app.kubernetes.io/name": "postgresql", "app.kubernetes.io/component": "primary"}
	return &appsv1.StatefulSet{
		ObjectMeta: metav1.ObjectMeta{Name: name + "-postgresql", Namespace: name, Annotations: map[string]string{kube.ReleaseNameAnnotation: name, kube.ReleaseNamespaceAnnotation: name}},
		Spec: appsv1.StatefulSetSpec{
			Selector: &metav1.LabelSelector{MatchLabels: labels},
			Template: corev1.PodTemplateSpec{ObjectMeta: metav1.ObjectMeta{Labels: labels}},
		},
	}
}

// PgSubstitutions is an image substitution annotation's value: PostgreSQL
// runs as Debian's, and an exporter image has no substitute.
const PgSubstitutions = `[{"container":"postgresql","requested":"postgres:16.4","image":"styrmin.local/postgres:15","runs":"Debian PostgreSQL 15.14"},` +
	`{"container":"exporter","requested":"quay.io/prometheuscommunity/postgres-exporter:v0.15.0","runs":"no image on the local cluster stands in for quay.io/prometheuscommunity/postgres-exporter:v0.15.0; the local cluster builds postgres, redis"}]`
