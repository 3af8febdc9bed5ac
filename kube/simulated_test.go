package kube_test

import (
	"context"
	"testing"

	"github.com/stretchr/testify/require"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
)

func tainted(n *corev1.Node, effect corev1.TaintEffect) *corev1.Node {
	n.Spec.Taints = []corev1.Taint{{Key: "styrmin.io/simulated", Value: "true", Effect: effect}}
	return n
}

func TestSimulatedWhenEveryNodeIsKwoks(t *testing.T) {
	t.Parallel()
	node := func(name string, annotations map[string]string) *corev1.Node {
		return &corev1.Node{ObjectMeta: metav1.ObjectMeta{Name: name, Annotations: annotations}}
	}
	kwok := map[string]string{"kwok.x-k8s.io/node": "fake"}
	for _, tc := range []struct {
		name  string
		nodes []runtime.Object
		want  bool
	}{
		{"no nodes", nil, false},
		{"a kwok node", []runtime.Object{node("styrmin-local", kwok)}, true},
		{"a real node", []runtime.Object{node("worker-1", nil)}, false},
		{"a real node among kwok ones", []runtime.Object{node("a", kwok), node("b", nil)}, false},
		// The local cluster: its kwok node is tainted beside the real node, where every pod lands.
		{"a tainted kwok node beside a real one", []runtime.Object{tainted(node("styrmin-local", kwok), corev1.TaintEffectNoSchedule), node("styrmin-node", nil)}, false},
		{"a real node tainted beside a kwok one", []runtime.Object{node("styrmin-local", kwok), tainted(node("styrmin-node", nil), corev1.TaintEffectNoSchedule)}, true},
		{"a real node tainted PreferNoSchedule beside a kwok one", []runtime.Object{node("styrmin-local", kwok), tainted(node("b", nil), corev1.TaintEffectPreferNoSchedule)}, false},
		{"only tainted real nodes", []runtime.Object{tainted(node("b", nil), corev1.TaintEffectNoSchedule)}, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got, err := fakeClient(tc.nodes...).Simulated(context.Background())
			require.NoError(t, err)
			require.Equal(t, tc.want, got)
		})
	}
}
