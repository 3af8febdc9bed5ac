package actionrunner

import (
	"context"
	"fmt"
	"os"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/util/retry"
	"k8s.io/utils/ptr"
	kwokv1alpha1 "sigs.k8s.io/kwok/pkg/apis/v1alpha1"
)

// publishLogs creates the (empty) log files and the kwok Logs object that makes
// kwok serve them as the pod's container logs; the object is owned by the pod.
func (r *Runner) publishLogs(ctx context.Context, pod *corev1.Pod, logFiles map[string]string) error {
	logs := &kwokv1alpha1.Logs{
		ObjectMeta: metav1.ObjectMeta{
			Name:      pod.Name,
			Namespace: pod.Namespace,
			OwnerReferences: []metav1.OwnerReference{{
				APIVersion: "v1", Kind: "Pod", Name: pod.Name, UID: pod.UID,
			}},
		},
	}
	for container, path := range logFiles {
		if err := os.WriteFile(path, nil, 0o644); err != nil {
			return fmt.Errorf("create log file: %w", err)
		}
		logs.Spec.Logs = append(logs.Spec.Logs, kwokv1alpha1.Log{
			Containers: []string{container},
			LogsFile:   ptr.To(path),
			Follow:     ptr.To(true),
		})
	}
	_, err := r.kwok.Logs(pod.Namespace).Create(ctx, logs, metav1.CreateOptions{})
	if apierrors.IsAlreadyExists(err) {
		err = r.kwok.Logs(pod.Namespace).Delete(ctx, pod.Name, metav1.DeleteOptions{})
		if err == nil {
			_, err = r.kwok.Logs(pod.Namespace).Create(ctx, logs, metav1.CreateOptions{})
		}
	}
	if err != nil {
		return fmt.Errorf("create kwok Logs: %w", err)
	}
	return nil
}

// markRunning sets the pod Running with every container running.
func (r *Runner) markRunning(ctx context.Context, pod *corev1.Pod, started metav1.Time) error {
	return r.updateStatus(ctx, pod, func(status *corev1.PodStatus) {
		status.Phase = corev1.PodRunning
		status.StartTime = &started
		status.HostIP = "127.0.0.1"
		status.HostIPs = []corev1.HostIP{{IP: "127.0.0.1"}}
		status.ContainerStatuses = nil
		for _, c := range pod.Spec.Containers {
			status.ContainerStatuses = append(status.ContainerStatuses, corev1.ContainerStatus{
				Name: c.Name, Image: c.Image, ImageID: c.Image, Ready: true, Started: ptr.To(true),
				State: corev1.ContainerState{Running: &corev1.ContainerStateRunning{StartedAt: started}},
			})
		}
		setCondition(status, corev1.PodInitialized, corev1.ConditionTrue, started)
		setCondition(status, corev1.ContainersReady, corev1.ConditionTrue, started)
		setCondition(status, corev1.PodReady, corev1.ConditionTrue, started)
	})
}

// markFinished sets each container terminated with its exit code and the pod
// Succeeded when all exited 0, else Failed.
func (r *Runner) markFinished(ctx context.Context, pod *corev1.Pod, started metav1.Time, results []result) error {
	phase := corev1.PodSucceeded
	for _, res := range results {
		if res.exitCode != 0 {
			phase = corev1.PodFailed
		}
	}
	now := metav1.Now()
	return r.updateStatus(ctx, pod, func(status *corev1.PodStatus) {
		status.Phase = phase
		status.ContainerStatuses = nil
		for i, c := range pod.Spec.Containers {
			res := results[i]
			status.ContainerStatuses = append(status.ContainerStatuses, corev1.ContainerStatus{
				Name: c.Name, Image: c.Image, ImageID: c.Image, Started: ptr.To(false),
				State: corev1.ContainerState{Terminated: &corev1.ContainerStateTerminated{
					ExitCode: res.exitCode, Reason: res.reason, Message: res.message,
					StartedAt: started, FinishedAt: metav1.NewTime(res.finished),
				}},
			})
		}
		setCondition(status, corev1.ContainersReady, corev1.ConditionFalse, now)
		setCondition(status, corev1.PodReady, corev1.ConditionFalse, now)
	})
}

func (r *Runner) updateStatus(ctx context.Context, pod *corev1.Pod, mutate func(*corev1.PodStatus)) error {
	err := retry.RetryOnConflict(retry.DefaultRetry, func() error {
		current, err := r.core.CoreV1().Pods(pod.Namespace).Get(ctx, pod.Name, metav1.GetOptions{})
		if err != nil {
			return err
		}
		if current.UID != pod.UID {
			return fmt.Errorf("pod was replaced")
		}
		mutate(&current.Status)
		_, err = r.core.CoreV1().Pods(pod.Namespace).UpdateStatus(ctx, current, metav1.UpdateOptions{})
		return err
	})
	if err != nil {
		return fmt.Errorf("update status: %w", err)
	}
	return nil
}

func setCondition(status *corev1.PodStatus, t corev1.PodConditionType, s corev1.ConditionStatus, at metav1.Time) {
	for i := range status.Conditions {
		if status.Conditions[i].Type == t {
			if status.Conditions[i].Status != s {
				status.Conditions[i].Status = s
				status.Conditions[i].LastTransitionTime = at
			}
			return
		}
	}
	status.Conditions = append(status.Conditions, corev1.PodCondition{Type: t, Status: s, LastTransitionTime: at})
}
