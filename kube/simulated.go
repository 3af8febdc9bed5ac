package kube

import (
	"context"
	"fmt"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// kwokNodeAnnotation marks a node that kwok manages: its pods become Ready
// without any container running (the local development cluster's node).
const kwokNodeAnnotation = "kwok.x-k8s.io/node"

// Simulated reports whether every node of the cluster is simulated by kwok,
// as on the local development cluster: applications do not really run there
// and Services are not reachable from the host. A cluster without nodes is
// not simulated.
func (c *Client) Simulated(ctx context.Context) (bool, error) {
	nodes, err := c.Clientset.CoreV1().Nodes().List(ctx, metav1.ListOptions{})
	if err != nil {
		return false, fmt.Errorf("kube: list nodes: %w", err)
	}
	for _, n := range nodes.Items {
		if n.Annotations[kwokNodeAnnotation] == "" {
			return false, nil
		}
	}
	return len(nodes.Items) > 0, nil
}
