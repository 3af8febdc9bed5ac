// Package substitute is the local cluster's list of image substitutions: the
// real node reaches no registry, so every image a pod requests is replaced by
// one built on the machine (localkube/nodeimages), in the open. The list says,
// for each requested repository, which local image runs instead and what
// really runs in it, with its version.
package substitute

// Rule substitutes every tag of one requested repository.
type Rule struct {
	// Repository is the requested image's repository, normalized as
	// containerd names it: docker.io/library/postgres for "postgres:16.4".
	Repository string `json:"repository"`
	// Image is the local image that runs instead, e.g. styrmin.local/postgres:15.
	Image string `json:"image"`
	// Runs says what really runs, with the version installed in the image,
	// e.g. "Debian PostgreSQL 15.14".
	Runs string `json:"runs"`
}

// Annotation is the pod annotation that records what was substituted: a JSON
// list of Substitution, one per container (init containers first) whose
// requested image is not one built on the machine (styrmin.local/...);
// containers that request such an image run it unchanged and have no entry,
// and a pod with no entry has no annotation. Styrmin reads it to say on the
// deployment page what really runs (its kube package keeps a copy of this
// key and shape; both modules test against testdata/annotation.json).
const Annotation = "styrmin.io/image-substitutions"

// Substitution is one container's entry in Annotation.
type Substitution struct {
	Container string `json:"container"`
	// Requested is the image the pod asked for, as written in its spec.
	Requested string `json:"requested"`
	// Image is the local image that runs; empty when no rule matched (the
	// container then cannot start, and Runs says why).
	Image string `json:"image,omitempty"`
	// Runs is the matching Rule's Runs, or the reason nothing runs.
	Runs string `json:"runs"`
}
