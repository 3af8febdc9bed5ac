package kube

import (
	"context"
	"fmt"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// kwokNodeAnnotation marks a node that kwok manages: its pods become Ready
// without any container running (the local development cluster's node).
const kwokNodeAnnotation = "kwok.x-k8s.io/node"

// Simulated reports whether every node an ordinary pod can land on is
// simulated by kwok, as on the local development cluster: applications do
// not really run there and Services are not reachable from the host. Nodes
// with a NoSchedule or NoExecute taint are left out (the local cluster's
// opt-in real node takes only pods that tolerate its taint). A cluster
// without such nodes is not simulated.
func (c *Client) Simulated(ctx context.Context) (bool, error) {
	nodes, err := c.Clientset.CoreV1().Nodes().List(ctx, metav1.ListOptions{})
	if err != nil {
		return false, fmt.Errorf("kube: list nodes: %w", err)
	}
	open := 0
	for _, n := range nodes.Items {
		if repels(n) {
			continue
		}
		if n.Annotations[kwokNodeAnnotation] == "" {
			return false, nil
		}
		open++
	}
	return open > 0, nil
}

// repels reports whether the node keeps off pods that do not tolerate one of
// its taints.
func repels(n corev1.Node) bool {
	for _, t := range n.Spec.Taints {
		if t.Effect == corev1.TaintEffectNoSchedule || t.Effect == corev1.TaintEffectNoExecute {
			return true
		}
	}
	return false
}
