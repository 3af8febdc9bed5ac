package kube

import (
	"context"
	"fmt"
	"strings"
	"time"

	appsv1 "k8s.io/api/apps/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/apimachinery/pkg/util/wait"

	styrmin "github.com/styrmin/styrmin"
	"github.com/styrmin/styrmin/drivers"
)

// The annotations Helm sets on every object of a release.
const (
	// ReleaseNameAnnotation is set to the release's name.
	ReleaseNameAnnotation = "meta.helm.sh/release-name"
	// ReleaseNamespaceAnnotation is set to the release's namespace.
	ReleaseNamespaceAnnotation = "meta.helm.sh/release-namespace"
)

// ofRelease reports whether Helm made the object of m for release in
// namespace: an object of another release of that name (elsewhere) is not.
func ofRelease(m metav1.ObjectMeta, namespace, release string) bool {
	return m.Annotations[ReleaseNameAnnotation] == release && m.Annotations[ReleaseNamespaceAnnotation] == namespace
}

// The kinds of workload a component selects.
const (
	KindDeployment  = "Deployment"
	KindStatefulSet = "StatefulSet"
)

// Workload is a Deployment or StatefulSet of a release, as a component sees it.
type Workload struct {
	// Kind is KindDeployment or KindStatefulSet.
	Kind string `json:"kind"`
	// Name is the object's name.
	Name string `json:"name"`
	// Replicas is the desired number of pods.
	Replicas int32 `json:"replicas"`
	// ReadyReplicas is the number of ready pods.
	ReadyReplicas int32 `json:"readyReplicas"`
	// AvailableReplicas is the number of pods ready for the workload's minReadySeconds.
	AvailableReplicas int32 `json:"availableReplicas"`
	// Failed is the controller's message when a Deployment's rollout passed
	// its progress deadline, "" otherwise.
	Failed string `json:"-"`
	// PodLabels are the labels of the pod template, which the selector matches.
	PodLabels map[string]string `json:"-"`
	// Waiting says why the workload is not ready; "" when it is.
	Waiting string `json:"-"`
	// podSelector selects the workload's pods (its spec.selector).
	podSelector labels.Selector
	// replicaSets name a Deployment's ReplicaSets.
	replicaSets []string
	// claimTemplates name a StatefulSet's volume claim templates.
	claimTemplates []string
}

// claims reports whether the claim of that name is one of w's volume claim
// templates' (<template>-<statefulset>-<ordinal>).
func (w Workload) claims(name string) bool {
	for _, t := range w.claimTemplates {
		ordinal, ok := strings.CutPrefix(name, t+"-"+w.Name+"-")
		if ok && ordinal != "" && strings.Trim(ordinal, "0123456789") == "" {
			return true
		}
	}
	return false
}

// Ready reports whether every desired pod runs the current template and is ready.
func (w Workload) Ready() bool { return w.Waiting == "" }

// progressDeadlineExceeded is the reason of a Deployment's Progressing
// condition once its rollout took longer than its progressDeadlineSeconds.
const progressDeadlineExceeded = "ProgressDeadlineExceeded"

// deploymentRevisionAnnotation is set by the Deployment controller on a
// Deployment and on each of its ReplicaSets: the ReplicaSet with the
// Deployment's revision runs its current pod template.
const deploymentRevisionAnnotation = "deployment.kubernetes.io/revision"

// deploymentWorkload reduces a Deployment; replicaSets are the ReplicaSets of
// its namespace, among which its own.
func deploymentWorkload(d *appsv1.Deployment, replicaSets []*appsv1.ReplicaSet) Workload {
	w := Workload{Kind: KindDeployment, Name: d.Name, Replicas: replicas(d.Spec.Replicas), ReadyReplicas: d.Status.ReadyReplicas,
		AvailableReplicas: d.Status.AvailableReplicas, PodLabels: d.Spec.Template.Labels, podSelector: podSelector(d.Spec.Selector)}
	for _, c := range d.Status.Conditions {
		if c.Type == appsv1.DeploymentProgressing && c.Reason == progressDeadlineExceeded {
			w.Failed = c.Message
		}
	}
	for _, rs := range replicaSets {
		if metav1.IsControlledBy(rs, d) {
			w.replicaSets = append(w.replicaSets, rs.Name)
		}
	}
	w.Waiting = waiting(w, d.Generation, d.Status.ObservedGeneration, d.Status.UpdatedReplicas, d.Status.Replicas)
	if w.Waiting == "" && w.Replicas > 0 {
		w.Waiting = newReplicaSetWaiting(w, d, replicaSets)
	}
	return w
}

// newReplicaSetWaiting says why the ReplicaSet that runs d's current pod
// template is not ready, "" when it is. A Deployment's status is summed from
// its ReplicaSets' statuses, and a ReplicaSet's status may not have seen its
// latest change: one scaled down and straight back up (a stop, then a start)
// still counts as ready the pods its controller is about to delete. So the
// ReplicaSet itself must have seen its latest change and have its pods ready.
func newReplicaSetWaiting(w Workload, d *appsv1.Deployment, replicaSets []*appsv1.ReplicaSet) string {
	var rs *appsv1.ReplicaSet
	for _, r := range replicaSets {
		if metav1.IsControlledBy(r, d) && r.Annotations[deploymentRevisionAnnotation] == d.Annotations[deploymentRevisionAnnotation] {
			rs = r
		}
	}
	switch {
	case rs == nil:
		return fmt.Sprintf("%s %s: its controller has not created the ReplicaSet of its current template yet", w.Kind, w.Name)
	case rs.Status.ObservedGeneration < rs.Generation:
		return fmt.Sprintf("%s %s: the controller of its ReplicaSet %s has not seen the latest change yet", w.Kind, w.Name, rs.Name)
	case rs.Status.ReadyReplicas < w.Replicas:
		return fmt.Sprintf("%s %s: %d of %d replicas ready", w.Kind, w.Name, rs.Status.ReadyReplicas, w.Replicas)
	}
	return ""
}

// statefulSetWorkload reduces a StatefulSet.
func statefulSetWorkload(s *appsv1.StatefulSet) Workload {
	w := Workload{Kind: KindStatefulSet, Name: s.Name, Replicas: replicas(s.Spec.Replicas), ReadyReplicas: s.Status.ReadyReplicas,
		AvailableReplicas: s.Status.AvailableReplicas, PodLabels: s.Spec.Template.Labels, podSelector: podSelector(s.Spec.Selector)}
	for _, t := range s.Spec.VolumeClaimTemplates {
		w.claimTemplates = append(w.claimTemplates, t.Name)
	}
	updated := s.Status.UpdatedReplicas
	if s.Spec.UpdateStrategy.Type == appsv1.OnDeleteStatefulSetStrategyType {
		updated = w.Replicas // pods are replaced only when deleted: do not wait for that
	}
	w.Waiting = waiting(w, s.Generation, s.Status.ObservedGeneration, updated, s.Status.Replicas)
	return w
}

// podSelector is a workload's spec.selector; one Kubernetes would refuse selects nothing.
func podSelector(selector *metav1.LabelSelector) labels.Selector {
	s, err := metav1.LabelSelectorAsSelector(selector)
	if err != nil || selector == nil {
		return labels.Nothing()
	}
	return s
}

// replicas is a spec's replica count; Kubernetes defaults a missing one to 1.
func replicas(r *int32) int32 {
	if r == nil {
		return 1
	}
	return *r
}

// waiting says why a workload is not ready, "" when it is.
func waiting(w Workload, generation, observed int64, updated, current int32) string {
	switch {
	case observed < generation:
		return fmt.Sprintf("%s %s: its controller has not seen the latest change yet", w.Kind, w.Name)
	case updated < w.Replicas:
		return fmt.Sprintf("%s %s: %d of %d replicas updated", w.Kind, w.Name, updated, w.Replicas)
	case w.ReadyReplicas < w.Replicas:
		return fmt.Sprintf("%s %s: %d of %d replicas ready", w.Kind, w.Name, w.ReadyReplicas, w.Replicas)
	case current > w.Replicas:
		return fmt.Sprintf("%s %s: %d old replicas still terminating", w.Kind, w.Name, current-w.Replicas)
	}
	return ""
}

// releaseWorkloads lists the Deployments and StatefulSets of release in namespace.
func (c *Client) releaseWorkloads(ctx context.Context, namespace, release string) ([]Workload, error) {
	var o namespaceObjects
	if err := c.listWorkloads(ctx, namespace, &o); err != nil {
		return nil, err
	}
	return o.workloads(namespace, release), nil
}

// listWorkloads reads namespace's Deployments, StatefulSets and ReplicaSets into o.
func (c *Client) listWorkloads(ctx context.Context, namespace string, o *namespaceObjects) error {
	deployments, err := c.Clientset.AppsV1().Deployments(namespace).List(ctx, metav1.ListOptions{})
	if err != nil {
		return fmt.Errorf("kube: list deployments in %s: %w", namespace, err)
	}
	statefulSets, err := c.Clientset.AppsV1().StatefulSets(namespace).List(ctx, metav1.ListOptions{})
	if err != nil {
		return fmt.Errorf("kube: list statefulsets in %s: %w", namespace, err)
	}
	replicaSets, err := c.Clientset.AppsV1().ReplicaSets(namespace).List(ctx, metav1.ListOptions{})
	if err != nil {
		return fmt.Errorf("kube: list replicasets in %s: %w", namespace, err)
	}
	o.deployments, o.statefulSets, o.replicaSets = pointers(deployments.Items), pointers(statefulSets.Items), pointers(replicaSets.Items)
	return nil
}

// pointers points at each item of a list.
func pointers[T any](items []T) []*T {
	out := make([]*T, len(items))
	for i := range items {
		out[i] = &items[i]
	}
	return out
}

// selectWorkloads keeps the workloads whose pod template labels c's selector matches.
func selectWorkloads(all []Workload, c drivers.Component) ([]Workload, error) {
	selector, err := c.Selector.Kubernetes()
	if err != nil {
		return nil, fmt.Errorf("kube: component %s: %w", c.Name, err)
	}
	var matched []Workload
	for _, w := range all {
		if selector.Matches(labels.Set(w.PodLabels)) {
			matched = append(matched, w)
		}
	}
	return matched, nil
}

// ComponentWorkloads lists the Deployments and StatefulSets of release (by
// Helm's release-name and release-namespace annotations) whose pod template labels component c's
// selector matches, Deployments first; none is not an error.
func (c *Client) ComponentWorkloads(ctx context.Context, namespace, release string, comp drivers.Component) ([]Workload, error) {
	all, err := c.releaseWorkloads(ctx, namespace, release)
	if err != nil {
		return nil, err
	}
	return selectWorkloads(all, comp)
}

// ScaleComponent sets the replicas of every workload of component comp and
// returns the workloads as they were before, for a later StartComponent.
// Errors: ENOTFOUND when the component has no workload.
func (c *Client) ScaleComponent(ctx context.Context, namespace, release string, comp drivers.Component, replicas int32) ([]Workload, error) {
	before, err := c.ComponentWorkloads(ctx, namespace, release, comp)
	if err != nil {
		return nil, err
	}
	if len(before) == 0 {
		return nil, noWorkload(release, comp)
	}
	for _, w := range before {
		if err := c.scale(ctx, namespace, w, replicas); err != nil {
			return nil, err
		}
	}
	return before, nil
}

// StartComponent scales every workload of component comp back up: to the
// replicas the workload had in stopped (what ScaleComponent returned), else to
// the component's defaults.replicas, else to 1. It
// returns the workloads with their new replicas. Errors: ENOTFOUND when the
// component has no workload.
func (c *Client) StartComponent(ctx context.Context, namespace, release string, comp drivers.Component, stopped []Workload) ([]Workload, error) {
	current, err := c.ComponentWorkloads(ctx, namespace, release, comp)
	if err != nil {
		return nil, err
	}
	if len(current) == 0 {
		return nil, noWorkload(release, comp)
	}
	for i, w := range current {
		target := StartReplicas(comp, w, stopped)
		if err := c.scale(ctx, namespace, w, target); err != nil {
			return nil, err
		}
		current[i].Replicas = target
	}
	return current, nil
}

// StartReplicas is the replica count starting comp gives workload w: w's
// replicas in stopped when above 0 (a start restores what the stop took
// down, including a count a user chose through a parameter), else the
// component's defaults.replicas when above 0, else 1.
func StartReplicas(comp drivers.Component, w Workload, stopped []Workload) int32 {
	for _, s := range stopped {
		if s.Kind == w.Kind && s.Name == w.Name && s.Replicas > 0 {
			return s.Replicas
		}
	}
	if comp.Defaults.Replicas != nil && *comp.Defaults.Replicas > 0 {
		return int32(*comp.Defaults.Replicas)
	}
	return 1
}

// scale patches the replicas of one workload.
func (c *Client) scale(ctx context.Context, namespace string, w Workload, replicas int32) error {
	patch := []byte(fmt.Sprintf(`{"spec":{"replicas":%d}}`, replicas))
	var err error
	switch w.Kind {
	case KindDeployment:
		_, err = c.Clientset.AppsV1().Deployments(namespace).Patch(ctx, w.Name, types.MergePatchType, patch, metav1.PatchOptions{})
	case KindStatefulSet:
		_, err = c.Clientset.AppsV1().StatefulSets(namespace).Patch(ctx, w.Name, types.MergePatchType, patch, metav1.PatchOptions{})
	}
	if err != nil {
		return fmt.Errorf("kube: scale %s %s/%s to %d: %w", w.Kind, namespace, w.Name, replicas, err)
	}
	return nil
}

// noWorkload is the error for a component that selects nothing.
func noWorkload(release string, comp drivers.Component) error {
	return styrmin.Errorf(styrmin.ENOTFOUND, "Component %s matches no Deployment or StatefulSet of release %s.", comp.Name, release)
}

// ComponentStatus is the readiness of one component.
type ComponentStatus struct {
	// Component is the component's name.
	Component string
	// Workloads are its Deployments and StatefulSets.
	Workloads []Workload
	// Ready is true when it has workloads and all are ready.
	Ready bool
	// Waiting says why it is not ready; "" when it is.
	Waiting string
}

// ComponentsReady reports the readiness of each component of release, in the
// order given, and whether all are ready. A component without workloads is not
// ready; a stopped one (its workloads at 0 replicas) is.
func (c *Client) ComponentsReady(ctx context.Context, namespace, release string, comps []drivers.Component) ([]ComponentStatus, bool, error) {
	all, err := c.releaseWorkloads(ctx, namespace, release)
	if err != nil {
		return nil, false, err
	}
	statuses := make([]ComponentStatus, len(comps))
	allReady := true
	for i, comp := range comps {
		workloads, err := selectWorkloads(all, comp)
		if err != nil {
			return nil, false, err
		}
		s := ComponentStatus{Component: comp.Name, Workloads: workloads}
		var waits []string
		for _, w := range workloads {
			if !w.Ready() {
				waits = append(waits, w.Waiting)
			}
		}
		if len(workloads) == 0 {
			waits = append(waits, fmt.Sprintf("no Deployment or StatefulSet of release %s matches its selector", release))
		}
		s.Waiting = strings.Join(waits, "; ")
		s.Ready = s.Waiting == ""
		allReady = allReady && s.Ready
		statuses[i] = s
	}
	return statuses, allReady, nil
}

// WaitComponentsReady polls until every component of release is ready and
// returns their last statuses; a failed poll (the API server briefly away) is
// tried again. Errors: EUNAVAILABLE naming each component that is not ready (or
// the last failure) when timeout passes or ctx ends.
func (c *Client) WaitComponentsReady(ctx context.Context, namespace, release string, comps []drivers.Component, timeout time.Duration) ([]ComponentStatus, error) {
	var (
		statuses []ComponentStatus
		lastErr  error
	)
	err := wait.PollUntilContextTimeout(ctx, pollInterval, timeout, true, func(ctx context.Context) (bool, error) {
		got, ready, err := c.ComponentsReady(ctx, namespace, release, comps)
		if err != nil {
			lastErr = err
			return false, nil
		}
		statuses, lastErr = got, nil
		return ready, nil
	})
	if err == nil {
		return statuses, nil
	}
	var waits []string
	for _, s := range statuses {
		if !s.Ready {
			waits = append(waits, fmt.Sprintf("component %s (%s)", s.Component, s.Waiting))
		}
	}
	if lastErr != nil {
		waits = append(waits, lastErr.Error())
	}
	if len(waits) == 0 {
		waits = append(waits, err.Error())
	}
	return statuses, &styrmin.Error{Code: styrmin.EUNAVAILABLE,
		Message: fmt.Sprintf("Release %s is not ready after %s: %s.", release, timeout, strings.Join(waits, ", ")), Err: err}
}

// WaitComponentsStopped polls until no pod of the workloads of comps is left,
// so that what a stop ended has really ended (a pod being deleted still runs
// for its grace period). Errors: EUNAVAILABLE naming the pods left when
// timeout passes or ctx ends.
func (c *Client) WaitComponentsStopped(ctx context.Context, namespace, release string, comps []drivers.Component, timeout time.Duration) error {
	var (
		left    []string
		lastErr error
	)
	err := wait.PollUntilContextTimeout(ctx, pollInterval, timeout, true, func(ctx context.Context) (bool, error) {
		left, lastErr = c.componentPods(ctx, namespace, release, comps)
		return lastErr == nil && len(left) == 0, nil
	})
	if err == nil {
		return nil
	}
	why := fmt.Sprintf("pods %s still run", strings.Join(left, ", "))
	if lastErr != nil {
		why = lastErr.Error()
	}
	return &styrmin.Error{Code: styrmin.EUNAVAILABLE, Message: fmt.Sprintf("Release %s has not stopped after %s: %s.", release, timeout, why), Err: err}
}

// componentPods names the pods of the workloads of comps.
func (c *Client) componentPods(ctx context.Context, namespace, release string, comps []drivers.Component) ([]string, error) {
	all, err := c.releaseWorkloads(ctx, namespace, release)
	if err != nil {
		return nil, err
	}
	pods, err := c.Clientset.CoreV1().Pods(namespace).List(ctx, metav1.ListOptions{})
	if err != nil {
		return nil, fmt.Errorf("kube: list pods in %s: %w", namespace, err)
	}
	var names []string
	for _, comp := range comps {
		workloads, err := selectWorkloads(all, comp)
		if err != nil {
			return nil, err
		}
		for _, w := range workloads {
			for _, p := range pods.Items {
				if w.podSelector.Matches(labels.Set(p.Labels)) {
					names = append(names, p.Name)
				}
			}
		}
	}
	return names, nil
}
