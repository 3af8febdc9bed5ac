package kube_test

import (
	"context"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	styrmin "github.com/styrmin/styrmin"
	"github.com/styrmin/styrmin/kube"
)

func TestEnsureNamespace(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	existing := &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: "theirs"}}
	terminating := &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: "going"}, Status: corev1.NamespaceStatus{Phase: corev1.NamespaceTerminating}}
	client := fakeClient(existing, terminating)

	created, err := client.EnsureNamespace(ctx, "shop", true, nil)
	require.NoError(t, err)
	require.True(t, created)
	ns, err := client.Clientset.CoreV1().Namespaces().Get(ctx, "shop", metav1.GetOptions{})
	require.NoError(t, err)
	require.Equal(t, map[string]string{kube.ManagedByLabel: kube.ManagedBy}, ns.Labels)
	require.Equal(t, map[string]string{"app.kubernetes.io/managed-by": "styrmin"}, ns.Labels)

	created, err = client.EnsureNamespace(ctx, "shop", true, nil)
	require.NoError(t, err)
	require.False(t, created, "a second call finds it")

	created, err = client.EnsureNamespace(ctx, "theirs", true, nil)
	require.NoError(t, err)
	require.False(t, created)
	ns, err = client.Clientset.CoreV1().Namespaces().Get(ctx, "theirs", metav1.GetOptions{})
	require.NoError(t, err)
	require.Empty(t, ns.Labels, "a namespace Styrmin did not create is left as it is")

	_, err = client.EnsureNamespace(ctx, "going", true, nil)
	require.Equal(t, styrmin.ECONFLICT, styrmin.ErrorCode(err))
}

func TestEnsureNamespaceCreatesNoneWhenNotAllowedTo(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	client := fakeClient(&corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: "theirs"}})

	created, err := client.EnsureNamespace(ctx, "theirs", false, nil)
	require.NoError(t, err)
	require.False(t, created, "an existing namespace is fine")

	_, err = client.EnsureNamespace(ctx, "shop", false, nil)
	require.Equal(t, styrmin.EINVALID, styrmin.ErrorCode(err))
	require.Equal(t, "Namespace shop does not exist, and an admin has not let Styrmin create namespaces: ask an admin to create it, or deploy into an existing namespace.", styrmin.ErrorMessage(err))
	_, err = client.Clientset.CoreV1().Namespaces().Get(ctx, "shop", metav1.GetOptions{})
	require.True(t, apierrors.IsNotFound(err))
}

func TestDeleteNamespace(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	client := fakeClient(&corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: "shop"}})

	require.NoError(t, client.DeleteNamespace(ctx, "shop"))
	_, err := client.Clientset.CoreV1().Namespaces().Get(ctx, "shop", metav1.GetOptions{})
	require.True(t, apierrors.IsNotFound(err))
	require.NoError(t, client.DeleteNamespace(ctx, "shop"), "deleting a missing namespace is not an error")

	ctx, cancel := context.WithTimeout(ctx, 10*time.Second)
	defer cancel()
	require.NoError(t, client.WaitNamespaceDeleted(ctx, "shop"))
}
