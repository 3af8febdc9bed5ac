package deployer_test

import (
	"context"
	"fmt"
	"slices"
	"testing"

	"github.com/stretchr/testify/require"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/styrmin/styrmin/devcluster/kubetest"
	"github.com/styrmin/styrmin/kube"
)

// TestTheLeftoversOfANamespaceAreListedAsItsDeployer: what is left in a
// namespace before Styrmin deletes it is listed as that namespace's deployer
// (kube.Client.ActingAs): every type there, a PodTemplate too (which
// Kubernetes' admin role does not list; the deployer's lister binding does).
// In a namespace whose deployer Styrmin never made, the same listing reads
// nothing (each type refused), where Styrmin's own identity (the tests'
// cluster admin) lists everything.
func TestTheLeftoversOfANamespaceAreListedAsItsDeployer(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	e := setup(t)
	acting, err := e.styrmin.ActingAs(e.deployers.Impersonation)
	require.NoError(t, err)
	template := &corev1.PodTemplate{ObjectMeta: metav1.ObjectMeta{Name: "left"},
		Template: corev1.PodTemplateSpec{Spec: corev1.PodSpec{Containers: []corev1.Container{{Name: "c", Image: "busybox:1.36"}}}}}
	_, err = e.styrmin.Clientset.CoreV1().PodTemplates(e.ns).Create(ctx, template, metav1.CreateOptions{})
	require.NoError(t, err)
	var left kube.Leftovers
	kubetest.Eventually(t, "the deployer lists every type of its namespace", func() error {
		left, err = acting.NamespaceLeftovers(ctx, e.ns, nil)
		if err == nil && len(forbidden(left)) > 0 {
			err = fmt.Errorf("refused: %v", forbidden(left))
		}
		return err
	})
	require.True(t, slices.ContainsFunc(left.Objects, func(l kube.Leftover) bool {
		return l.Resource.Resource == "podtemplates" && l.Meta.Name == "left"
	}), "the PodTemplate is seen: %+v", left.Objects)

	other := kubetest.UniqueName("deployer-other")
	_, err = e.styrmin.EnsureNamespace(ctx, other, true, nil)
	require.NoError(t, err)
	t.Cleanup(func() { require.NoError(t, e.styrmin.DeleteNamespace(context.Background(), other)) })
	left, err = acting.NamespaceLeftovers(ctx, other, nil)
	require.NoError(t, err)
	require.Contains(t, forbidden(left), "configmaps", "a namespace without a deployer is read as nobody")
	require.Contains(t, forbidden(left), "podtemplates")
	require.False(t, left.Empty())
	own, err := e.styrmin.NamespaceLeftovers(ctx, other, nil)
	require.NoError(t, err)
	require.Empty(t, forbidden(own), "Styrmin's own identity would have listed it")
}

// forbidden are the types a listing was refused.
func forbidden(left kube.Leftovers) []string {
	var refused []string
	for _, u := range left.Unchecked {
		if u.Reason == "forbidden" {
			refused = append(refused, u.Resource)
		}
	}
	return refused
}
