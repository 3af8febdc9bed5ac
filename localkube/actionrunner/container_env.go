package actionrunner

import (
	"context"
	"fmt"
	"os"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// containerEnv is the host PATH, HOME set to the scratch folder and the
// container's env: plain values, Secret and ConfigMap keys, the pod's name and namespace.
func (r *Runner) containerEnv(ctx context.Context, pod *corev1.Pod, c corev1.Container, workDir string) ([]string, error) {
	env := []string{"PATH=" + os.Getenv("PATH"), "HOME=" + workDir, "HOSTNAME=" + pod.Name}
	for _, e := range c.Env {
		value, err := r.envValue(ctx, pod, e)
		if err != nil {
			return nil, fmt.Errorf("env %s of container %q: %w", e.Name, c.Name, err)
		}
		env = append(env, e.Name+"="+value)
	}
	return env, nil
}

func (r *Runner) envValue(ctx context.Context, pod *corev1.Pod, e corev1.EnvVar) (string, error) {
	from := e.ValueFrom
	switch {
	case from == nil:
		return e.Value, nil
	case from.SecretKeyRef != nil:
		secret, err := r.core.CoreV1().Secrets(pod.Namespace).Get(ctx, from.SecretKeyRef.Name, metav1.GetOptions{})
		if err != nil {
			return "", err
		}
		v, ok := secret.Data[from.SecretKeyRef.Key]
		if !ok {
			return "", fmt.Errorf("secret %s has no key %q", from.SecretKeyRef.Name, from.SecretKeyRef.Key)
		}
		return string(v), nil
	case from.ConfigMapKeyRef != nil:
		cm, err := r.core.CoreV1().ConfigMaps(pod.Namespace).Get(ctx, from.ConfigMapKeyRef.Name, metav1.GetOptions{})
		if err != nil {
			return "", err
		}
		v, ok := cm.Data[from.ConfigMapKeyRef.Key]
		if !ok {
			return "", fmt.Errorf("configmap %s has no key %q", from.ConfigMapKeyRef.Name, from.ConfigMapKeyRef.Key)
		}
		return v, nil
	case from.FieldRef != nil && from.FieldRef.FieldPath == "metadata.name":
		return pod.Name, nil
	case from.FieldRef != nil && from.FieldRef.FieldPath == "metadata.namespace":
		return pod.Namespace, nil
	default:
		return "", fmt.Errorf("the local action runner supports value, secretKeyRef, configMapKeyRef and fieldRef metadata.name/metadata.namespace only")
	}
}
