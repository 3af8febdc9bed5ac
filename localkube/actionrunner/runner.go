// Package actionrunner really runs the containers of action-job pods on the
// host: for each pod labelled styrmin.io/action-job=true that the scheduler has
// bound to the local node, it runs every container's command in a scratch
// folder with a time limit, serves the output as the pod's log through a kwok
// Logs object, and ends the pod Succeeded or Failed by the real exit codes.
package actionrunner

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"sync"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/informers"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/rest"
	"k8s.io/client-go/tools/cache"
	kwokclient "sigs.k8s.io/kwok/pkg/client/clientset/versioned/typed/apis/v1alpha1"
)

// The label that marks the Jobs and pod templates the runner executes:
// Label=LabelValue. Styrmin's main module has the same pair as
// kube.ActionJobLabel and kube.ActionJobLabelValue (a test there compares them).
const (
	// Label is the label's key.
	Label = "styrmin.io/action-job"
	// LabelValue is the label's value.
	LabelValue = "true"
)

// DefaultTimeLimit bounds a pod without spec.activeDeadlineSeconds.
const DefaultTimeLimit = 10 * time.Minute

// Runner watches action-job pods and runs them.
type Runner struct {
	core       kubernetes.Interface
	kwok       kwokclient.KwokV1alpha1Interface
	scratchDir string
	logf       func(format string, args ...any)

	mu      sync.Mutex
	running map[types.UID]context.CancelFunc
	wg      sync.WaitGroup
}

// New returns a Runner using config, keeping scratch folders and logs under scratchDir.
func New(config *rest.Config, scratchDir string, logf func(format string, args ...any)) (*Runner, error) {
	core, err := kubernetes.NewForConfig(config)
	if err != nil {
		return nil, fmt.Errorf("action runner: %w", err)
	}
	kwok, err := kwokclient.NewForConfig(config)
	if err != nil {
		return nil, fmt.Errorf("action runner: %w", err)
	}
	return &Runner{core: core, kwok: kwok, scratchDir: scratchDir, logf: logf, running: map[types.UID]context.CancelFunc{}}, nil
}

// Run watches pods until ctx ends, then kills what still runs and waits for it.
func (r *Runner) Run(ctx context.Context) error {
	if err := os.MkdirAll(r.scratchDir, 0o755); err != nil {
		return fmt.Errorf("action runner: %w", err)
	}
	factory := informers.NewSharedInformerFactoryWithOptions(r.core, 0,
		informers.WithTweakListOptions(func(o *metav1.ListOptions) { o.LabelSelector = Label + "=" + LabelValue }))
	pods := factory.Core().V1().Pods().Informer()
	_, err := pods.AddEventHandler(cache.ResourceEventHandlerFuncs{
		AddFunc:    func(obj any) { r.observe(ctx, obj) },
		UpdateFunc: func(_, obj any) { r.observe(ctx, obj) },
		DeleteFunc: func(obj any) {
			if tomb, ok := obj.(cache.DeletedFinalStateUnknown); ok {
				obj = tomb.Obj
			}
			if pod, ok := obj.(*corev1.Pod); ok {
				r.forget(pod)
			}
		},
	})
	if err != nil {
		return fmt.Errorf("action runner: watch pods: %w", err)
	}
	factory.Start(ctx.Done())
	<-ctx.Done()
	factory.Shutdown()
	r.wg.Wait()
	return nil
}

// observe starts a bound, pending pod once and stops a pod being deleted.
func (r *Runner) observe(ctx context.Context, obj any) {
	pod, ok := obj.(*corev1.Pod)
	if !ok {
		return
	}
	if pod.DeletionTimestamp != nil {
		r.cancel(pod.UID)
		return
	}
	if pod.Spec.NodeName == "" || pod.Status.Phase != corev1.PodPending {
		return
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	if _, seen := r.running[pod.UID]; seen {
		return
	}
	podCtx, cancel := context.WithCancel(ctx)
	r.running[pod.UID] = cancel
	r.wg.Go(func() {
		defer cancel()
		if err := r.runPod(podCtx, pod.DeepCopy()); err != nil {
			r.logf("action pod %s/%s: %v", pod.Namespace, pod.Name, err)
		}
	})
}

// forget stops a deleted pod's commands and removes its scratch folder and logs.
func (r *Runner) forget(pod *corev1.Pod) {
	r.mu.Lock()
	cancel, ok := r.running[pod.UID]
	delete(r.running, pod.UID)
	r.mu.Unlock()
	if !ok {
		return
	}
	cancel()
	if err := os.RemoveAll(r.podDir(pod)); err != nil {
		r.logf("action pod %s/%s: remove scratch folder: %v", pod.Namespace, pod.Name, err)
	}
}

func (r *Runner) podDir(pod *corev1.Pod) string {
	return filepath.Join(r.scratchDir, pod.Namespace, pod.Name+"-"+string(pod.UID))
}

func (r *Runner) cancel(uid types.UID) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if cancel, ok := r.running[uid]; ok {
		cancel()
	}
}

// runPod runs every container of pod at once and records the outcome.
func (r *Runner) runPod(ctx context.Context, pod *corev1.Pod) error {
	dir := r.podDir(pod)
	workDir := filepath.Join(dir, "work")
	if err := os.MkdirAll(workDir, 0o755); err != nil {
		return err
	}
	logFiles := map[string]string{}
	for _, c := range pod.Spec.Containers {
		logFiles[c.Name] = filepath.Join(dir, c.Name+".log")
	}
	if err := r.publishLogs(ctx, pod, logFiles); err != nil {
		return err
	}
	started := metav1.Now()
	if err := r.markRunning(ctx, pod, started); err != nil {
		return err
	}
	limit := DefaultTimeLimit
	if d := pod.Spec.ActiveDeadlineSeconds; d != nil && *d > 0 {
		limit = time.Duration(*d) * time.Second
	}
	results := make([]result, len(pod.Spec.Containers))
	var wg sync.WaitGroup
	for i, c := range pod.Spec.Containers {
		wg.Go(func() {
			results[i] = r.runContainer(ctx, pod, c, workDir, logFiles[c.Name], limit)
		})
	}
	wg.Wait()
	if ctx.Err() != nil {
		return nil // pod deleted or cluster stopping: nothing left to report
	}
	return r.markFinished(context.WithoutCancel(ctx), pod, started, results)
}
