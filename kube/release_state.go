package kube

import (
	"cmp"
	"context"
	"fmt"
	"slices"
	"strings"
	"time"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/labels"

	"github.com/styrmin/styrmin/drivers"
)

// Budgets of one read of a release's state: a namespace's events and pods
// are read a page at most, and a page shows the newest events only.
const (
	// MaxEvents is how many of a release's events a ReleaseState keeps.
	MaxEvents = 20
	// maxListed bounds the objects of one kind a ReleaseState reads in a namespace.
	maxListed = 1000
)

// ReleaseState is what the cluster runs of a release now, read once: its
// Deployments and StatefulSets, their pods, its PersistentVolumeClaims and
// its recent events.
type ReleaseState struct {
	// Workloads are the release's Deployments, then StatefulSets.
	Workloads []Workload
	// Pods are the pods of Workloads, by name.
	Pods []Pod
	// PVCs are the release's claims (its own and its StatefulSets'), by name.
	PVCs []PVC
	// Events are the newest events of the release's objects (its workloads,
	// their ReplicaSets and pods, its claims), warnings first, then newest
	// first; at most MaxEvents, EventsLeftOut saying how many more there were.
	Events        []Event
	EventsLeftOut int
	// ImageSubstitutions are the local cluster's substitutions recorded on
	// Pods, each distinct one once (the same requested image, image and what
	// runs, whatever the container), ordered by requested image; none on a
	// cluster that substitutes nothing.
	ImageSubstitutions []ImageSubstitution
}

// Pod is one pod of a release's workload.
type Pod struct {
	// Name is the pod's name; Workload is "Kind/name" of its workload.
	Name, Workload string
	// Phase is Kubernetes' pod phase: Pending, Running, Succeeded, Failed, Unknown.
	Phase string
	// Ready and Containers count its ready containers and all of them.
	Ready, Containers int
	// ContainerNames are its containers' names, in its spec's order (whose
	// logs a viewer may read, PodLog).
	ContainerNames []string
	// Restarts is the sum of its containers' restarts.
	Restarts int32
	// Created is when the pod was created; Node where it runs ("" unscheduled).
	Created time.Time
	Node    string
	// Waiting is why a container waits (CrashLoopBackOff, ImagePullBackOff,
	// ...), "" when none does but to be created.
	Waiting string
	// LastTermination is why a container last ended (OOMKilled, Error,
	// Completed), "" when none has.
	LastTermination string
	// Message is the cluster's message of Waiting or LastTermination, as the
	// cluster says it: a caller shows it only through a redactor.
	Message string
}

// PVC is a PersistentVolumeClaim of a release.
type PVC struct {
	// Name is the claim's name; Phase is Pending, Bound or Lost.
	Name, Phase string
	// Size is the bound capacity, else the requested storage ("" for none).
	Size string
	// StorageClass is the claim's class, "" for the default.
	StorageClass string
}

// Event is a Kubernetes Event of one of a release's objects.
type Event struct {
	// Type is Normal or Warning; Reason the cluster's one word (BackOff, Failed, ...).
	Type, Reason string
	// Object is "Kind/name" of the object the event is about.
	Object string
	// Message is the cluster's text, to be shown only through a redactor.
	Message string
	// Count is how many times it happened; Last when it last did.
	Count int32
	Last  time.Time
}

// Warning reports whether the event is a warning.
func (e Event) Warning() bool { return e.Type == corev1.EventTypeWarning }

// namespaceObjects are the objects of one namespace a ReleaseState is
// read from, as a list call or an informer's cache gives them: shared,
// read-only.
type namespaceObjects struct {
	deployments  []*appsv1.Deployment
	statefulSets []*appsv1.StatefulSet
	replicaSets  []*appsv1.ReplicaSet
	pods         []*corev1.Pod
	claims       []*corev1.PersistentVolumeClaim
	events       []*corev1.Event
}

// ReleaseState reads release's state in namespace in one pass: six lists
// (Deployments, StatefulSets, ReplicaSets, pods, claims, events), each at
// most maxListed objects. Watches reads it from informers instead.
func (c *Client) ReleaseState(ctx context.Context, namespace, release string) (*ReleaseState, error) {
	var o namespaceObjects
	if err := c.listWorkloads(ctx, namespace, &o); err != nil {
		return nil, err
	}
	pods, err := c.Clientset.CoreV1().Pods(namespace).List(ctx, metav1.ListOptions{Limit: maxListed})
	if err != nil {
		return nil, fmt.Errorf("kube: list pods in %s: %w", namespace, err)
	}
	claims, err := c.Clientset.CoreV1().PersistentVolumeClaims(namespace).List(ctx, metav1.ListOptions{Limit: maxListed})
	if err != nil {
		return nil, fmt.Errorf("kube: list persistentvolumeclaims in %s: %w", namespace, err)
	}
	events, err := c.Clientset.CoreV1().Events(namespace).List(ctx, metav1.ListOptions{Limit: maxListed})
	if err != nil {
		return nil, fmt.Errorf("kube: list events in %s: %w", namespace, err)
	}
	o.pods, o.claims, o.events = pointers(pods.Items), pointers(claims.Items), pointers(events.Items)
	return o.state(namespace, release)
}

// workloads are the Deployments, then StatefulSets, of release among o's.
func (o namespaceObjects) workloads(namespace, release string) []Workload {
	var all []Workload
	for _, d := range o.deployments {
		if ofRelease(d.ObjectMeta, namespace, release) {
			all = append(all, deploymentWorkload(d, o.replicaSets))
		}
	}
	for _, s := range o.statefulSets {
		if ofRelease(s.ObjectMeta, namespace, release) {
			all = append(all, statefulSetWorkload(s))
		}
	}
	return all
}

// state is the state of release among o's objects.
func (o namespaceObjects) state(namespace, release string) (*ReleaseState, error) {
	workloads := o.workloads(namespace, release)
	s := &ReleaseState{Workloads: workloads}
	objects := map[string]bool{}
	for _, w := range workloads {
		objects[w.Kind+"/"+w.Name] = true
		for _, rs := range w.replicaSets {
			objects["ReplicaSet/"+rs] = true
		}
	}
	var substitutions []ImageSubstitution
	for _, p := range o.pods {
		i := slices.IndexFunc(workloads, func(w Workload) bool { return w.podSelector.Matches(labels.Set(p.Labels)) })
		if i < 0 {
			continue
		}
		s.Pods = append(s.Pods, podOf(p, workloads[i]))
		objects["Pod/"+p.Name] = true
		subs, err := podSubstitutions(p)
		if err != nil {
			return nil, err
		}
		substitutions = append(substitutions, subs...)
	}
	s.ImageSubstitutions = distinctSubstitutions(substitutions)
	for _, pvc := range o.claims {
		if ofRelease(pvc.ObjectMeta, namespace, release) || slices.ContainsFunc(workloads, func(w Workload) bool { return w.claims(pvc.Name) }) {
			s.PVCs = append(s.PVCs, pvcOf(pvc))
			objects["PersistentVolumeClaim/"+pvc.Name] = true
		}
	}
	slices.SortFunc(s.Pods, func(a, b Pod) int { return cmp.Compare(a.Name, b.Name) })
	slices.SortFunc(s.PVCs, func(a, b PVC) int { return cmp.Compare(a.Name, b.Name) })
	s.Events, s.EventsLeftOut = releaseEvents(o.events, objects)
	return s, nil
}

// Component returns the workloads of s that comp's selector picks.
func (s *ReleaseState) Component(comp drivers.Component) ([]Workload, error) {
	return selectWorkloads(s.Workloads, comp)
}

// podOf reduces a pod of workload w.
func podOf(p *corev1.Pod, w Workload) Pod {
	out := Pod{Name: p.Name, Workload: w.Kind + "/" + w.Name, Phase: string(p.Status.Phase), Created: p.CreationTimestamp.Time,
		Node: p.Spec.NodeName, Containers: len(p.Spec.Containers)}
	for _, c := range p.Spec.Containers {
		out.ContainerNames = append(out.ContainerNames, c.Name)
	}
	statuses := append(slices.Clone(p.Status.InitContainerStatuses), p.Status.ContainerStatuses...)
	for _, cs := range p.Status.ContainerStatuses {
		if cs.Ready {
			out.Ready++
		}
	}
	for _, cs := range statuses {
		out.Restarts += cs.RestartCount
		if w := cs.State.Waiting; w != nil && out.Waiting == "" && !startingReasons[w.Reason] {
			out.Waiting, out.Message = w.Reason, w.Message
		}
		term := cs.State.Terminated
		if term == nil {
			term = cs.LastTerminationState.Terminated
		}
		if term != nil && out.LastTermination == "" {
			out.LastTermination = term.Reason
			out.Message = cmp.Or(out.Message, term.Message)
		}
	}
	return out
}

// startingReasons are the reasons a container waits for that say nothing is wrong.
var startingReasons = map[string]bool{"": true, "ContainerCreating": true, "PodInitializing": true}

// pvcOf reduces a claim.
func pvcOf(pvc *corev1.PersistentVolumeClaim) PVC {
	out := PVC{Name: pvc.Name, Phase: string(pvc.Status.Phase)}
	if pvc.Spec.StorageClassName != nil {
		out.StorageClass = *pvc.Spec.StorageClassName
	}
	size, ok := pvc.Status.Capacity[corev1.ResourceStorage]
	if !ok {
		size, ok = pvc.Spec.Resources.Requests[corev1.ResourceStorage]
	}
	if ok {
		out.Size = size.String()
	}
	return out
}

// releaseEvents keeps the events about objects, warnings first, then
// newest first, at most MaxEvents, and says how many it left out.
func releaseEvents(all []*corev1.Event, objects map[string]bool) ([]Event, int) {
	var out []Event
	for _, e := range all {
		object := e.InvolvedObject.Kind + "/" + e.InvolvedObject.Name
		if !objects[object] {
			continue
		}
		last := e.LastTimestamp.Time
		for _, t := range []time.Time{e.EventTime.Time, e.FirstTimestamp.Time, e.CreationTimestamp.Time} {
			if last.IsZero() {
				last = t
			}
		}
		out = append(out, Event{Type: e.Type, Reason: e.Reason, Object: object, Message: strings.TrimSpace(e.Message), Count: max(e.Count, 1), Last: last})
	}
	slices.SortStableFunc(out, func(a, b Event) int {
		if a.Warning() != b.Warning() {
			if a.Warning() {
				return -1
			}
			return 1
		}
		return b.Last.Compare(a.Last)
	})
	if len(out) > MaxEvents {
		return out[:MaxEvents], len(out) - MaxEvents
	}
	return out, 0
}
