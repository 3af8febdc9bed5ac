package release

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io"
	"slices"
	"strconv"

	"helm.sh/helm/v3/pkg/postrender"
	k8syaml "k8s.io/apimachinery/pkg/util/yaml"
	"sigs.k8s.io/yaml"
)

// HeldAnnotation marks a workload that a revision holds at 0 replicas
// because its component was stopped when the revision was made (Held); its
// value is the replicas the chart rendered. A start scales it back up behind
// Helm, so its spec.replicas is not the manifest's while it runs.
const HeldAnnotation = "styrmin.io/held-stopped"

// Held names a workload a Helm operation keeps at 0 replicas.
type Held struct {
	// Kind is Deployment or StatefulSet; Name the object's name.
	Kind, Name string
}

// holdStopped is a Helm post-renderer that sets spec.replicas to 0 on the
// held workloads of a rendered manifest (and marks them with HeldAnnotation),
// so that Helm's three-way merge does not scale a stopped component back up.
// Other documents pass through unchanged.
type holdStopped []Held

var _ postrender.PostRenderer = holdStopped(nil)

// Run rewrites the held workloads of manifest.
func (h holdStopped) Run(manifest *bytes.Buffer) (*bytes.Buffer, error) {
	out := &bytes.Buffer{}
	docs := k8syaml.NewYAMLReader(bufio.NewReader(bytes.NewReader(manifest.Bytes())))
	for {
		doc, err := docs.Read()
		if errors.Is(err, io.EOF) {
			return out, nil
		}
		if err != nil {
			return nil, fmt.Errorf("release: split the rendered manifest: %w", err)
		}
		if doc, err = h.hold(doc); err != nil {
			return nil, err
		}
		out.WriteString("---\n")
		out.Write(doc)
	}
}

// hold returns doc with 0 replicas when it is a held workload, else as it is.
func (h holdStopped) hold(doc []byte) ([]byte, error) {
	var obj struct {
		Kind     string `json:"kind"`
		Metadata struct {
			Name string `json:"name"`
		} `json:"metadata"`
	}
	if err := yaml.Unmarshal(doc, &obj); err != nil {
		return nil, fmt.Errorf("release: read a rendered document: %w", err)
	}
	if !slices.Contains(h, Held{Kind: obj.Kind, Name: obj.Metadata.Name}) {
		return doc, nil
	}
	var fields map[string]any
	if err := yaml.Unmarshal(doc, &fields); err != nil {
		return nil, fmt.Errorf("release: read %s %s to hold it stopped: %w", obj.Kind, obj.Metadata.Name, err)
	}
	spec, _ := fields["spec"].(map[string]any)
	if spec == nil {
		spec = map[string]any{}
		fields["spec"] = spec
	}
	rendered := "1" // Kubernetes' default when the chart sets none
	if r, ok := spec["replicas"].(float64); ok {
		rendered = strconv.FormatFloat(r, 'f', -1, 64)
	}
	spec["replicas"] = 0
	meta, _ := fields["metadata"].(map[string]any)
	annotations, _ := meta["annotations"].(map[string]any)
	if annotations == nil {
		annotations = map[string]any{}
		meta["annotations"] = annotations
	}
	annotations[HeldAnnotation] = rendered
	out, err := yaml.Marshal(fields)
	if err != nil {
		return nil, fmt.Errorf("release: write %s %s held stopped: %w", obj.Kind, obj.Metadata.Name, err)
	}
	return out, nil
}

// postRenderers chains post-renderers, in order.
type postRenderers []postrender.PostRenderer

// Run runs each post-renderer on what the one before gave.
func (p postRenderers) Run(manifest *bytes.Buffer) (*bytes.Buffer, error) {
	var err error
	for _, r := range p {
		if manifest, err = r.Run(manifest); err != nil {
			return nil, err
		}
	}
	return manifest, nil
}
