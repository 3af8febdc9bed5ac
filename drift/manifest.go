// Package drift compares the objects a Helm release applied (its manifest)
// with the objects the cluster holds now, field by field, over the fields
// the manifest sets only (Argo CD's "applied ⊆ live" view, without a
// schema): what the cluster adds (status, defaults, managedFields,
// resourceVersion, its own annotations) is never drift. It reads nothing
// from the cluster itself; its caller fetches the live objects.
package drift

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strings"

	k8syaml "k8s.io/apimachinery/pkg/util/yaml"
	"sigs.k8s.io/yaml"

	"github.com/styrmin/styrmin"
)

// Budgets of a manifest, which a third-party chart wrote.
const (
	// MaxManifestBytes bounds the manifest compared.
	MaxManifestBytes = 4 << 20
	// MaxObjects bounds the objects of a manifest (each is one GET).
	MaxObjects = 300
	// MaxDepth bounds the nesting of an object's fields.
	MaxDepth = 64
)

// Ref names one object of a release.
type Ref struct {
	APIVersion string `json:"apiVersion"`
	Kind       string `json:"kind"`
	// Namespace is the one the manifest gives, "" when it gives none (the
	// release's namespace, or a cluster-scoped object).
	Namespace string `json:"namespace,omitempty"`
	Name      string `json:"name"`
}

// String names the object as kubectl does: Kind/name, after its namespace when given.
func (r Ref) String() string {
	if r.Namespace != "" {
		return r.Namespace + "/" + r.Kind + "/" + r.Name
	}
	return r.Kind + "/" + r.Name
}

// Object is one object as the manifest sets it.
type Object struct {
	Ref
	// Fields are the object's fields, decoded as JSON decodes them.
	Fields map[string]any
}

// Objects splits a release's manifest into its objects (its documents as
// Helm's kube client reads them: a block scalar keeps its last newline) (the items of a
// List each an object of its own), in the manifest's order. A manifest
// beyond the budgets (MaxManifestBytes, MaxObjects, MaxDepth), a document
// that is not YAML or an object without kind or name is an EINVALID error.
func Objects(manifest string) ([]Object, error) {
	if len(manifest) > MaxManifestBytes {
		return nil, styrmin.Errorf(styrmin.EINVALID, "The release's manifest holds %d bytes, more than the %d Styrmin compares.", len(manifest), MaxManifestBytes)
	}
	var out []Object
	docs := k8syaml.NewYAMLReader(bufio.NewReader(strings.NewReader(manifest)))
	for {
		doc, err := docs.Read()
		if errors.Is(err, io.EOF) {
			return out, nil
		}
		if err != nil {
			return nil, styrmin.Errorf(styrmin.EINVALID, "The release's manifest cannot be split into documents: %v.", err)
		}
		if strings.TrimSpace(string(doc)) == "" {
			continue
		}
		fields, err := decode(doc)
		if err != nil {
			return nil, styrmin.Errorf(styrmin.EINVALID, "A document of the release's manifest cannot be read: %v.", err)
		}
		if fields == nil {
			continue
		}
		if out, err = appendObject(out, fields); err != nil {
			return nil, err
		}
	}
}

// decode reads one YAML document as JSON decodes it (numbers as float64),
// within MaxDepth.
func decode(doc []byte) (map[string]any, error) {
	j, err := yaml.YAMLToJSON(doc)
	if err != nil {
		return nil, err
	}
	if depth(j) > MaxDepth {
		return nil, fmt.Errorf("it nests deeper than %d levels", MaxDepth)
	}
	var fields map[string]any
	if err := json.Unmarshal(j, &fields); err != nil {
		return nil, fmt.Errorf("it is not an object: %w", err)
	}
	return fields, nil
}

// depth is the deepest nesting of objects and arrays in a JSON text.
func depth(j []byte) int {
	dec := json.NewDecoder(bytes.NewReader(j))
	deepest, at := 0, 0
	for {
		tok, err := dec.Token()
		if errors.Is(err, io.EOF) || err != nil {
			return deepest
		}
		switch tok {
		case json.Delim('{'), json.Delim('['):
			at++
			deepest = max(deepest, at)
		case json.Delim('}'), json.Delim(']'):
			at--
		}
	}
}

// appendObject appends fields as an object, or the items of a List.
func appendObject(out []Object, fields map[string]any) ([]Object, error) {
	kind, _ := fields["kind"].(string)
	if items, ok := fields["items"].([]any); ok && strings.HasSuffix(kind, "List") {
		for _, item := range items {
			m, ok := item.(map[string]any)
			if !ok {
				return nil, styrmin.Errorf(styrmin.EINVALID, "An item of a %s in the release's manifest is not an object.", kind)
			}
			var err error
			if out, err = appendObject(out, m); err != nil {
				return nil, err
			}
		}
		return out, nil
	}
	ref, err := refOf(fields)
	if err != nil {
		return nil, err
	}
	if len(out) == MaxObjects {
		return nil, styrmin.Errorf(styrmin.EINVALID, "The release's manifest holds more than the %d objects Styrmin compares.", MaxObjects)
	}
	return append(out, Object{Ref: ref, Fields: fields}), nil
}

// refOf names the object of fields.
func refOf(fields map[string]any) (Ref, error) {
	meta, _ := fields["metadata"].(map[string]any)
	r := Ref{}
	r.APIVersion, _ = fields["apiVersion"].(string)
	r.Kind, _ = fields["kind"].(string)
	r.Name, _ = meta["name"].(string)
	r.Namespace, _ = meta["namespace"].(string)
	if r.APIVersion == "" || r.Kind == "" || r.Name == "" {
		return r, styrmin.Errorf(styrmin.EINVALID, "An object of the release's manifest lacks its apiVersion, kind or metadata.name.")
	}
	return r, nil
}
