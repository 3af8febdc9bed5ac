// Package requests sums the CPU and memory that a rendered manifest's pods
// request, as Kubernetes' scheduler counts them: the figures a team's quota
// is checked against.
package requests

import (
	"encoding/json"
	"fmt"
	"math"

	appsv1 "k8s.io/api/apps/v1"
	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	"k8s.io/apimachinery/pkg/runtime/schema"
	kjson "sigs.k8s.io/json"

	"github.com/styrmin/styrmin"
	"github.com/styrmin/styrmin/permissions"
)

// The budget of one Sum: a manifest past it is refused, not counted in part.
const (
	// MaxManifestBytes bounds the manifest (the bound permissions.Parse reads).
	MaxManifestBytes = permissions.MaxManifestBytes
	// MaxObjects bounds the objects of a manifest, list items included.
	MaxObjects = permissions.MaxObjects
	// MaxListDepth bounds lists inside lists.
	MaxListDepth = permissions.MaxListDepth
)

// Totals is what pods request: CPU in millicores and memory in bytes. A
// figure past int64 stays at math.MaxInt64 (Saturated).
type Totals struct {
	CPUMillis   int64 `json:"cpu_millis"`
	MemoryBytes int64 `json:"memory_bytes"`
}

// Add is t and u together, each figure saturated at math.MaxInt64.
func (t Totals) Add(u Totals) Totals {
	return Totals{CPUMillis: add(t.CPUMillis, u.CPUMillis), MemoryBytes: add(t.MemoryBytes, u.MemoryBytes)}
}

// times is t for n pods, saturated.
func (t Totals) times(n int64) Totals {
	return Totals{CPUMillis: mul(t.CPUMillis, n), MemoryBytes: mul(t.MemoryBytes, n)}
}

// max is the larger of t and u, figure by figure.
func (t Totals) max(u Totals) Totals {
	return Totals{CPUMillis: max(t.CPUMillis, u.CPUMillis), MemoryBytes: max(t.MemoryBytes, u.MemoryBytes)}
}

// Saturated reports whether a figure reached math.MaxInt64: more than any
// quota can allow.
func (t Totals) Saturated() bool {
	return t.CPUMillis == math.MaxInt64 || t.MemoryBytes == math.MaxInt64
}

// Sum reads a rendered manifest (YAML or JSON documents, as Helm applies
// them, and the items of lists) and sums what its pods request when every
// one runs: a Pod once; the pod template of a Deployment, StatefulSet,
// ReplicaSet or ReplicationController times its spec.replicas (1 when
// unset), of a Job times its spec.parallelism (1 when unset), of a
// CronJob's job template times its parallelism (one run at a time); a
// DaemonSet's once, which is per node: the manifest does not say on how
// many nodes it runs. Other kinds request nothing here (an operator's
// custom resource whose pods the operator makes, an autoscaler that adds
// replicas). A pod requests, per resource, its pod-level request when set,
// else the larger of its containers' and restartable (sidecar) init
// containers' sum and what its init containers need while each runs, plus
// its overhead; a container with a limit but no request requests its limit.
// Objects are decoded as Kubernetes decodes them (case-sensitive keys,
// typed apps/v1, batch/v1 and core/v1 structs). A manifest past the
// budget, that does not parse, whose quantities or replica counts do not
// parse or are negative, is an EINVALID error; figures past int64 saturate.
func Sum(manifest string) (Totals, error) {
	if len(manifest) > MaxManifestBytes {
		return Totals{}, styrmin.Errorf(styrmin.EINVALID, "The chart renders %d bytes, more than the %d MiB Styrmin reads to count what its pods request.", len(manifest), MaxManifestBytes>>20)
	}
	var s summer
	err := permissions.Documents(manifest, func(doc []byte) error { return s.read(doc, 0) })
	return s.total, err
}

// summer sums a manifest's objects.
type summer struct {
	total   Totals
	objects int
}

// head is what Sum reads of every object first.
type head struct {
	APIVersion string `json:"apiVersion"`
	Kind       string `json:"kind"`
	Metadata   struct {
		Name string `json:"name"`
	} `json:"metadata"`
	Items []json.RawMessage `json:"items"`
}

// read adds one document's object (or list's items) at list depth.
func (s *summer) read(raw json.RawMessage, depth int) error {
	if len(raw) == 0 || string(raw) == "null" {
		return nil
	}
	var h head
	if err := kjson.UnmarshalCaseSensitivePreserveInts(raw, &h); err != nil {
		return styrmin.Errorf(styrmin.EINVALID, "The chart's rendered manifest holds an object that does not parse: %v.", err)
	}
	if h.Items != nil {
		if depth >= MaxListDepth {
			return styrmin.Errorf(styrmin.EINVALID, "The chart's rendered manifest nests lists more than %d deep.", MaxListDepth)
		}
		for _, item := range h.Items {
			if err := s.read(item, depth+1); err != nil {
				return err
			}
		}
		return nil
	}
	if h.Kind == "" {
		return nil
	}
	if s.objects++; s.objects > MaxObjects {
		return styrmin.Errorf(styrmin.EINVALID, "The chart renders more than %d objects, more than Styrmin reads to count what its pods request.", MaxObjects)
	}
	gv, _ := schema.ParseGroupVersion(h.APIVersion)
	t, err := objectRequests(gv.Group+"/"+h.Kind, raw)
	if err != nil {
		return styrmin.Errorf(styrmin.EINVALID, "The chart's rendered manifest holds the %s %q, whose pods' requests cannot be counted: %v.", h.Kind, h.Metadata.Name, err)
	}
	s.total = s.total.Add(t)
	return nil
}

// objectRequests is what an object of kind ("group/Kind") requests when
// all its pods run; nothing for a kind that runs no pods.
func objectRequests(kind string, raw []byte) (Totals, error) {
	switch kind {
	case "/Pod":
		var o corev1.Pod
		if err := decode(raw, &o); err != nil {
			return Totals{}, err
		}
		return podRequests(o.Spec)
	case "apps/Deployment":
		var o appsv1.Deployment
		return templateRequests(raw, &o, func() (*int32, corev1.PodSpec) { return o.Spec.Replicas, o.Spec.Template.Spec })
	case "apps/StatefulSet":
		var o appsv1.StatefulSet
		return templateRequests(raw, &o, func() (*int32, corev1.PodSpec) { return o.Spec.Replicas, o.Spec.Template.Spec })
	case "apps/ReplicaSet":
		var o appsv1.ReplicaSet
		return templateRequests(raw, &o, func() (*int32, corev1.PodSpec) { return o.Spec.Replicas, o.Spec.Template.Spec })
	case "/ReplicationController":
		var o corev1.ReplicationController
		return templateRequests(raw, &o, func() (*int32, corev1.PodSpec) {
			if o.Spec.Template == nil {
				return o.Spec.Replicas, corev1.PodSpec{}
			}
			return o.Spec.Replicas, o.Spec.Template.Spec
		})
	case "apps/DaemonSet":
		var o appsv1.DaemonSet
		return templateRequests(raw, &o, func() (*int32, corev1.PodSpec) { return nil, o.Spec.Template.Spec })
	case "batch/Job":
		var o batchv1.Job
		return templateRequests(raw, &o, func() (*int32, corev1.PodSpec) { return o.Spec.Parallelism, o.Spec.Template.Spec })
	case "batch/CronJob":
		var o batchv1.CronJob
		return templateRequests(raw, &o, func() (*int32, corev1.PodSpec) {
			return o.Spec.JobTemplate.Spec.Parallelism, o.Spec.JobTemplate.Spec.Template.Spec
		})
	}
	return Totals{}, nil
}

// templateRequests decodes raw into o and returns what the pod template
// that spec reads of it requests, times the count it reads (1 when nil).
func templateRequests(raw []byte, o any, spec func() (*int32, corev1.PodSpec)) (Totals, error) {
	if err := decode(raw, o); err != nil {
		return Totals{}, err
	}
	count, pod := spec()
	n := int64(1)
	if count != nil {
		n = int64(*count)
	}
	if n < 0 {
		return Totals{}, fmt.Errorf("it asks for %d pods", n)
	}
	t, err := podRequests(pod)
	return t.times(n), err
}

// decode reads raw into o as Kubernetes does: case-sensitive keys.
func decode(raw []byte, o any) error {
	return kjson.UnmarshalCaseSensitivePreserveInts(raw, o)
}

// podRequests is a pod's effective request, per Kubernetes' rule.
func podRequests(spec corev1.PodSpec) (Totals, error) {
	var containers, sidecars, init Totals
	for _, c := range spec.Containers {
		r, err := containerRequests(c)
		if err != nil {
			return Totals{}, err
		}
		containers = containers.Add(r)
	}
	for _, c := range spec.InitContainers {
		r, err := containerRequests(c)
		if err != nil {
			return Totals{}, err
		}
		if c.RestartPolicy != nil && *c.RestartPolicy == corev1.ContainerRestartPolicyAlways {
			// A sidecar runs from its start to the pod's end.
			sidecars = sidecars.Add(r)
			init = init.max(sidecars)
			continue
		}
		init = init.max(sidecars.Add(r))
	}
	total := containers.Add(sidecars).max(init)
	if spec.Resources != nil {
		pod, err := requirements(*spec.Resources)
		if err != nil {
			return Totals{}, err
		}
		// A pod-level request (or limit, which defaults it) is at least
		// its containers' sum where the cluster honours it; where it does
		// not (an older cluster drops the field), the containers' sum is
		// what is requested: the larger counts.
		total = total.max(pod)
	}
	overhead, err := quantities(spec.Overhead, nil)
	return total.Add(overhead), err
}

// containerRequests is a container's request: its requests, its limits
// for a resource it requests nothing of.
func containerRequests(c corev1.Container) (Totals, error) {
	r, err := requirements(c.Resources)
	if err != nil {
		return Totals{}, fmt.Errorf("container %s: %w", c.Name, err)
	}
	return r, nil
}

// requirements reads requests, defaulted from limits.
func requirements(r corev1.ResourceRequirements) (Totals, error) {
	return quantities(r.Requests, r.Limits)
}

// quantities reads CPU and memory of list, or of fallback for a resource
// list does not name; a negative quantity is an error.
func quantities(list, fallback corev1.ResourceList) (Totals, error) {
	var t Totals
	for _, name := range []corev1.ResourceName{corev1.ResourceCPU, corev1.ResourceMemory} {
		q, ok := list[name]
		if !ok {
			q, ok = fallback[name]
		}
		if !ok {
			continue
		}
		if q.Sign() < 0 {
			return Totals{}, fmt.Errorf("a negative %s of %s", name, q.String())
		}
		if name == corev1.ResourceCPU {
			t.CPUMillis = millis(q)
		} else {
			t.MemoryBytes = units(q)
		}
	}
	return t, nil
}

// Largest quantities that fit int64 as millis and as units.
var (
	maxMillis = resource.NewMilliQuantity(math.MaxInt64, resource.DecimalSI)
	maxUnits  = resource.NewQuantity(math.MaxInt64, resource.DecimalSI)
)

// millis is q in thousandths (rounded up), saturated at math.MaxInt64.
func millis(q resource.Quantity) int64 {
	if q.Cmp(*maxMillis) >= 0 {
		return math.MaxInt64
	}
	return q.MilliValue()
}

// units is q rounded up, saturated at math.MaxInt64.
func units(q resource.Quantity) int64 {
	if q.Cmp(*maxUnits) >= 0 {
		return math.MaxInt64
	}
	return q.Value()
}

// add is a+b for a, b ≥ 0, saturated at math.MaxInt64.
func add(a, b int64) int64 {
	if a > math.MaxInt64-b {
		return math.MaxInt64
	}
	return a + b
}

// mul is a×n for a, n ≥ 0, saturated at math.MaxInt64.
func mul(a, n int64) int64 {
	if a == 0 || n == 0 {
		return 0
	}
	if a > math.MaxInt64/n {
		return math.MaxInt64
	}
	return a * n
}
