package kube

import (
	"context"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	styrmin "github.com/styrmin/styrmin"
)

// actionSecretSuffix ends the name of a release's action Secret.
const actionSecretSuffix = "-styrmin-action"

// ActionSecretName is the name of the Secret holding release's secret
// parameter values for its action Jobs: "<release>-styrmin-action".
func ActionSecretName(release string) string { return release + actionSecretSuffix }

// EnsureActionSecret creates or replaces the Secret ActionSecretName(release)
// in namespace, labelled ManagedByLabel=ManagedBy, so that its data are
// exactly data (key → value), and returns its name. An action Job reads a key
// through SecretRef{Secret: name, Key: key}. Errors: ECONFLICT when a Secret
// of that name exists that Styrmin did not create (it is left alone);
// EUNAVAILABLE when the cluster does not answer.
func (c *Client) EnsureActionSecret(ctx context.Context, namespace, release string, data map[string]string) (string, error) {
	name := ActionSecretName(release)
	secrets := c.Clientset.CoreV1().Secrets(namespace)
	bytes := make(map[string][]byte, len(data))
	for k, v := range data {
		bytes[k] = []byte(v)
	}
	existing, err := secrets.Get(ctx, name, metav1.GetOptions{})
	switch {
	case apierrors.IsNotFound(err):
		secret := &corev1.Secret{
			ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: namespace, Labels: map[string]string{ManagedByLabel: ManagedBy}},
			Type:       corev1.SecretTypeOpaque,
			Data:       bytes,
		}
		if _, err := secrets.Create(ctx, secret, metav1.CreateOptions{}); err != nil {
			if apierrors.IsAlreadyExists(err) {
				return "", styrmin.Errorf(styrmin.ECONFLICT, "The Secret %s was created by someone else meanwhile; try again.", name)
			}
			return "", unavailable(err, "Could not create the Secret %s in namespace %s.", name, namespace)
		}
		return name, nil
	case err != nil:
		return "", unavailable(err, "Could not read the Secret %s in namespace %s.", name, namespace)
	case existing.Labels[ManagedByLabel] != ManagedBy:
		return "", styrmin.Errorf(styrmin.ECONFLICT, "A Secret named %s exists in namespace %s that Styrmin did not create; Styrmin leaves it alone — delete or rename it.", name, namespace)
	}
	existing.Data, existing.StringData = bytes, nil
	if _, err := secrets.Update(ctx, existing, metav1.UpdateOptions{}); err != nil {
		if apierrors.IsConflict(err) {
			return "", styrmin.Errorf(styrmin.ECONFLICT, "The Secret %s changed while Styrmin was updating it; try again.", name)
		}
		return "", unavailable(err, "Could not update the Secret %s in namespace %s.", name, namespace)
	}
	return name, nil
}
