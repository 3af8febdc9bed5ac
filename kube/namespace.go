package kube

import (
	"context"
	"fmt"
	"maps"
	"time"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/wait"

	styrmin "github.com/styrmin/styrmin"
)

// ManagedByLabel and ManagedBy mark the namespaces Styrmin creates.
const (
	ManagedByLabel = "app.kubernetes.io/managed-by"
	ManagedBy      = "styrmin"
)

// pollInterval is how often waits look at the cluster again.
const pollInterval = time.Second

// EnsureNamespace creates namespace name, labelled ManagedByLabel=ManagedBy
// and with labels, when it does not exist and mayCreate, and reports whether
// it did. Errors: ECONFLICT when the namespace is being deleted, EINVALID when
// it does not exist and may not be created.
func (c *Client) EnsureNamespace(ctx context.Context, name string, mayCreate bool, labels map[string]string) (created bool, err error) {
	existing, err := c.Clientset.CoreV1().Namespaces().Get(ctx, name, metav1.GetOptions{})
	if err == nil {
		if existing.Status.Phase == corev1.NamespaceTerminating {
			return false, styrmin.Errorf(styrmin.ECONFLICT, "Namespace %s is being deleted; try again once it is gone.", name)
		}
		return false, nil
	}
	if !apierrors.IsNotFound(err) {
		return false, fmt.Errorf("kube: get namespace %s: %w", name, err)
	}
	if !mayCreate {
		return false, styrmin.Errorf(styrmin.EINVALID, "Namespace %s does not exist, and an admin has not let Styrmin create namespaces: ask an admin to create it, or deploy into an existing namespace.", name)
	}
	ns := &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: name, Labels: maps.Clone(labels)}}
	if ns.Labels == nil {
		ns.Labels = map[string]string{}
	}
	ns.Labels[ManagedByLabel] = ManagedBy
	_, err = c.Clientset.CoreV1().Namespaces().Create(ctx, ns, metav1.CreateOptions{})
	switch {
	case apierrors.IsAlreadyExists(err): // created meanwhile by someone else
		return false, nil
	case err != nil:
		return false, fmt.Errorf("kube: create namespace %s: %w", name, err)
	}
	return true, nil
}

// DeleteNamespace asks for namespace name and everything in it to be deleted,
// and returns once the API server has accepted (the namespace is then
// terminating; see WaitNamespaceDeleted). A missing namespace is not an error.
// Whether Styrmin may delete it (because it created it) is the caller's decision.
func (c *Client) DeleteNamespace(ctx context.Context, name string) error {
	err := c.Clientset.CoreV1().Namespaces().Delete(ctx, name, metav1.DeleteOptions{})
	if err != nil && !apierrors.IsNotFound(err) {
		return fmt.Errorf("kube: delete namespace %s: %w", name, err)
	}
	return nil
}

// WaitNamespaceDeleted waits until namespace name no longer exists, or ctx ends.
func (c *Client) WaitNamespaceDeleted(ctx context.Context, name string) error {
	err := wait.PollUntilContextCancel(ctx, pollInterval, true, func(ctx context.Context) (bool, error) {
		_, err := c.Clientset.CoreV1().Namespaces().Get(ctx, name, metav1.GetOptions{})
		if apierrors.IsNotFound(err) {
			return true, nil
		}
		return false, err
	})
	if err != nil {
		return fmt.Errorf("kube: wait for namespace %s to be deleted: %w", name, err)
	}
	return nil
}
