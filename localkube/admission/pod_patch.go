package admission

import (
	"encoding/json"
	"fmt"
	"strings"

	corev1 "k8s.io/api/core/v1"

	"github.com/styrmin/styrmin/localkube/substitute"
)

// MaxAnnotationBytes bounds substitute.Annotation: the API server allows
// 256 KiB for all of a pod's annotations, and a pod whose substitutions do
// not fit in a quarter of that (thousands of containers, or image names of
// many kilobytes) is refused rather than recorded in part.
const MaxAnnotationBytes = 64 << 10

// Operation is one JSON Patch (RFC 6902) operation.
type Operation struct {
	Op    string `json:"op"`
	Path  string `json:"path"`
	Value any    `json:"value,omitempty"`
}

// PodPatch is the JSON Patch that runs pod's containers and init containers
// on the images of rules: each container that requests an image not built
// on the machine gets its substitute (or, with none, an image named
// styrmin.local/no-substitute/... that never exists) and the pull policy
// Never, and substitute.Annotation records one entry per such container. A
// pod with none gets no annotation, and loses one it came with: only the
// webhook says what was substituted. The patch is empty when nothing
// changes.
func PodPatch(pod *corev1.Pod, rules *Rules) ([]Operation, error) {
	var (
		ops     []Operation
		entries []substitute.Substitution
	)
	for _, list := range []struct {
		path       string
		containers []corev1.Container
	}{
		{"/spec/initContainers", pod.Spec.InitContainers},
		{"/spec/containers", pod.Spec.Containers},
	} {
		for i, c := range list.containers {
			d := rules.decide(c.Name, c.Image)
			if d == nil {
				continue
			}
			at := fmt.Sprintf("%s/%d", list.path, i)
			ops = append(ops,
				Operation{Op: "replace", Path: at + "/image", Value: d.image},
				Operation{Op: "add", Path: at + "/imagePullPolicy", Value: corev1.PullNever})
			entries = append(entries, d.entry)
		}
	}
	annotation, err := annotationPatch(pod.Annotations, entries)
	if err != nil {
		return nil, err
	}
	return append(ops, annotation...), nil
}

// annotationPatch sets substitute.Annotation to entries, or removes it
// when there are none.
func annotationPatch(annotations map[string]string, entries []substitute.Substitution) ([]Operation, error) {
	_, had := annotations[substitute.Annotation]
	if len(entries) == 0 {
		if had {
			return []Operation{{Op: "remove", Path: annotationPath}}, nil
		}
		return nil, nil
	}
	value, err := json.Marshal(entries)
	if err != nil {
		return nil, fmt.Errorf("admission: encode %s: %w", substitute.Annotation, err)
	}
	if len(value) > MaxAnnotationBytes {
		return nil, fmt.Errorf("the image substitutions of this pod's %d containers take %d bytes, more than the %d bytes the local cluster records in the pod's %s annotation: use fewer containers or shorter image names",
			len(entries), len(value), MaxAnnotationBytes, substitute.Annotation)
	}
	if annotations == nil {
		return []Operation{{Op: "add", Path: "/metadata/annotations", Value: map[string]string{substitute.Annotation: string(value)}}}, nil
	}
	return []Operation{{Op: "add", Path: annotationPath, Value: string(value)}}, nil
}

// annotationPath is the JSON Pointer (RFC 6901) of substitute.Annotation.
var annotationPath = "/metadata/annotations/" + strings.NewReplacer("~", "~0", "/", "~1").Replace(substitute.Annotation)
