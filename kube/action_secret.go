package kube

import (
	"context"
	"fmt"

	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/apimachinery/pkg/util/rand"
	"k8s.io/utils/ptr"
)

// actionJobSecretName is the name of the Secret of one action Job of release:
// "<release>-job-env-" and five random characters, so that it never meets
// the Secret of an earlier Job that Kubernetes has not removed yet.
func actionJobSecretName(release string) string {
	return ActionJobName(release) + "-env-" + rand.String(5)
}

// createJobSecret creates the Secret name holding values (environment
// variable → value) for job, owned by job: Kubernetes deletes it with job,
// and a foreground deletion of job waits for it. Its data never change.
func (c *Client) createJobSecret(ctx context.Context, job *batchv1.Job, name string, values map[string]string) error {
	data := make(map[string][]byte, len(values))
	for k, v := range values {
		data[k] = []byte(v)
	}
	secret := &corev1.Secret{
		ObjectMeta: metav1.ObjectMeta{
			Name: name, Namespace: job.Namespace,
			Labels: map[string]string{ActionJobLabel: ActionJobLabelValue, ManagedByLabel: ManagedBy},
			OwnerReferences: []metav1.OwnerReference{{
				APIVersion: "batch/v1", Kind: "Job", Name: job.Name, UID: job.UID,
				Controller: ptr.To(true), BlockOwnerDeletion: ptr.To(true),
			}},
		},
		Type:      corev1.SecretTypeOpaque,
		Immutable: ptr.To(true),
		Data:      data,
	}
	if _, err := c.Clientset.CoreV1().Secrets(job.Namespace).Create(ctx, secret, metav1.CreateOptions{}); err != nil {
		return unavailable(err, "Could not create the Secret %s of the Job %s in namespace %s.", name, job.Name, job.Namespace)
	}
	return nil
}

// startJob lets the suspended job run once its Secret exists.
func (c *Client) startJob(ctx context.Context, job *batchv1.Job) error {
	// The uid makes the patch apply to this very Job only.
	patch := fmt.Appendf(nil, `{"metadata":{"uid":%q},"spec":{"suspend":false}}`, job.UID)
	if _, err := c.Clientset.BatchV1().Jobs(job.Namespace).Patch(ctx, job.Name, types.MergePatchType, patch, metav1.PatchOptions{}); err != nil {
		return unavailable(err, "Could not start the Job %s in namespace %s.", job.Name, job.Namespace)
	}
	return nil
}

// dropJob deletes job, which this call created but could not start, with
// its Secret and pods; err is why, returned with what became of the Job.
func (c *Client) dropJob(ctx context.Context, job *batchv1.Job, err error) error {
	ctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), jobStopTimeout)
	defer cancel()
	derr := c.Clientset.BatchV1().Jobs(job.Namespace).Delete(ctx, job.Name, metav1.DeleteOptions{
		PropagationPolicy: ptr.To(metav1.DeletePropagationForeground),
		Preconditions:     &metav1.Preconditions{UID: &job.UID},
	})
	if derr != nil && !apierrors.IsNotFound(derr) {
		return fmt.Errorf("%w; the suspended Job %s could not be deleted either, the next call deletes it (%w)", err, job.Name, derr)
	}
	return err
}
