package handlerstest

import (
	"testing"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/client-go/kubernetes/fake"
	k8stesting "k8s.io/client-go/testing"

	"github.com/styrmin/styrmin/deployment"
	"github.com/styrmin/styrmin/kube"
	"github.com/styrmin/styrmin/release/releasetest"
)

// PgLogging is a fake cluster that runs PgInstall(name) as one pod,
// <name>-postgresql-0 with a container "postgresql", beside a pod of no
// release in the same namespace ("stray-0"), whose kubelet answers every
// log read with log.
func PgLogging(t *testing.T, name, log string) *deployment.Cluster {
	t.Helper()
	statefulSet := pgStatefulSet(name)
	pod := &corev1.Pod{ObjectMeta: metav1.ObjectMeta{Name: statefulSet.Name + "-0", Namespace: name, Labels: statefulSet.Spec.Template.Labels},
		Spec: corev1.PodSpec{Containers: []corev1.Container{{Name: "postgresql"}}}}
	stray := &corev1.Pod{ObjectMeta: metav1.ObjectMeta{Name: "stray-0", Namespace: name}, Spec: corev1.PodSpec{Containers: []corev1.Container{{Name: "c"}}}}
	clientset := fake.NewClientset(statefulSet, pod, stray)
	clientset.PrependReactor("get", "pods", func(a k8stesting.Action) (bool, runtime.Object, error) {
		if a.GetSubresource() != "log" {
			return false, nil, nil
		}
		return true, &runtime.Unknown{Raw: []byte(log)}, nil
	})
	return &deployment.Cluster{Releases: releasetest.New(t).Client, Kube: &kube.Client{Clientset: clientset}}
}
