package kube

import (
	"cmp"
	"encoding/json"
	"fmt"
	"slices"

	corev1 "k8s.io/api/core/v1"
)

// ImageSubstitutionAnnotation is the pod annotation in which the local
// cluster records the images it ran instead of the requested ones: a JSON
// list of ImageSubstitution. The contract is localkube/substitute.Annotation
// (the localkube module, which this one cannot import); both sides test
// against localkube/substitute/testdata/annotation.json.
const ImageSubstitutionAnnotation = "styrmin.io/image-substitutions"

// ImageSubstitution is one container's entry in ImageSubstitutionAnnotation
// (localkube/substitute.Substitution).
type ImageSubstitution struct {
	// Container is the container's name.
	Container string `json:"container"`
	// Requested is the image the pod asked for, as written in its spec.
	Requested string `json:"requested"`
	// Image is the image built on the machine that runs instead; empty when
	// none stands in for Requested.
	Image string `json:"image,omitempty"`
	// Runs says what really runs in Image, with its version, or why nothing
	// does.
	Runs string `json:"runs"`
}

// Missing reports that no image stands in for the requested one: the
// container cannot start, and Runs says why.
func (s ImageSubstitution) Missing() bool { return s.Image == "" }

// podSubstitutions reads the substitutions recorded on p, none when it has
// no annotation.
func podSubstitutions(p *corev1.Pod) ([]ImageSubstitution, error) {
	value, ok := p.Annotations[ImageSubstitutionAnnotation]
	if !ok {
		return nil, nil
	}
	var entries []ImageSubstitution
	if err := json.Unmarshal([]byte(value), &entries); err != nil {
		return nil, fmt.Errorf("kube: pod %s/%s: annotation %s is not a list of image substitutions: %w", p.Namespace, p.Name, ImageSubstitutionAnnotation, err)
	}
	return entries, nil
}

// distinctSubstitutions keeps the first of the entries that differ only in
// their container, ordered by requested image, then image, then what runs.
func distinctSubstitutions(all []ImageSubstitution) []ImageSubstitution {
	compare := func(a, b ImageSubstitution) int {
		return cmp.Or(cmp.Compare(a.Requested, b.Requested), cmp.Compare(a.Image, b.Image), cmp.Compare(a.Runs, b.Runs))
	}
	slices.SortStableFunc(all, compare)
	return slices.CompactFunc(all, func(a, b ImageSubstitution) bool { return compare(a, b) == 0 })
}
