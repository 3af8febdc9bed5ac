package release

import (
	"cmp"
	"fmt"
	"reflect"
	"slices"
	"strings"

	"github.com/pmezard/go-difflib/difflib"
	"helm.sh/helm/v3/pkg/releaseutil"
	"sigs.k8s.io/yaml"

	"github.com/styrmin/styrmin/permissions"
)

// Change says how a resource differs between two manifests.
type Change string

// The changes of a resource.
const (
	Added     Change = "added"
	Removed   Change = "removed"
	Changed   Change = "changed"
	Unchanged Change = "unchanged"
)

// Redacted replaces each value of a Secret's data and stringData in a diff;
// RedactedChanged replaces the new value of a key whose value changed.
const (
	Redacted        = "<redacted>"
	RedactedChanged = "<redacted: changed>"
)

// ResourceDiff is how one resource (kind, namespace, name) differs between two manifests.
type ResourceDiff struct {
	// Kind is the resource's kind, such as Deployment.
	Kind string
	// Namespace is the namespace the manifest gives, "" when it gives none.
	Namespace string
	// Name is the resource's name.
	Name string
	// Change is whether the resource was added, removed, changed or left unchanged.
	Change Change
	// Diff is a unified diff of the resource's YAML (keys sorted, comments
	// dropped); "" when unchanged. A Secret's values are never in it: see Redacted.
	Diff string
	// ChangedSecretKeys lists, for a Secret, the data and stringData keys whose
	// value was added, removed or changed (as "data.password"), sorted.
	ChangedSecretKeys []string
}

// DiffManifests compares two rendered manifests (such as the current
// revision's and an upgrade dry run's) resource by resource, each item of a
// list as a resource of its own, ordered by kind, namespace and name. Secret
// values are redacted on both sides, in lists too; which keys changed is
// still told.
func DiffManifests(old, new string) []ResourceDiff {
	before, after := resources(old), resources(new)
	keys := make(map[resourceKey]bool, len(before)+len(after))
	for k := range before {
		keys[k] = true
	}
	for k := range after {
		keys[k] = true
	}
	diffs := make([]ResourceDiff, 0, len(keys))
	for k := range keys {
		diffs = append(diffs, diffResource(k, before[k], after[k]))
	}
	slices.SortFunc(diffs, func(a, b ResourceDiff) int {
		return cmp.Or(cmp.Compare(a.Kind, b.Kind), cmp.Compare(a.Namespace, b.Namespace), cmp.Compare(a.Name, b.Name))
	})
	return diffs
}

// resourceKey identifies a resource across revisions.
type resourceKey struct{ kind, namespace, name string }

// String names the resource as kubectl does: Kind/name, prefixed by its namespace when given.
func (k resourceKey) String() string {
	if k.namespace != "" {
		return k.namespace + "/" + k.kind + "/" + k.name
	}
	return k.kind + "/" + k.name
}

// resources parses each document of a manifest into the objects Helm
// applies: a list (any object with an items array, as Kubernetes reads
// lists) gives its items, to permissions.MaxListDepth; nil objects are
// skipped. A document that is not YAML is kept whole under kind "?".
func resources(manifest string) map[resourceKey]map[string]any {
	objects := map[resourceKey]map[string]any{}
	for file, doc := range releaseutil.SplitManifests(manifest) {
		var obj map[string]any
		if err := yaml.Unmarshal([]byte(doc), &obj); err != nil {
			objects[resourceKey{kind: "?", name: file}] = map[string]any{"unparsed": doc}
			continue
		}
		addObject(objects, obj, 0)
	}
	return objects
}

// addObject adds obj, found at list depth, to objects; a list adds its items
// instead, each object among them. A list nested deeper than Helm's
// permission check reads (which refuses it) is kept as itself, its items
// replaced by Redacted: a Secret among them would show.
func addObject(objects map[resourceKey]map[string]any, obj map[string]any, depth int) {
	if obj == nil {
		return
	}
	items, isList := obj["items"].([]any)
	if isList && depth < permissions.MaxListDepth {
		for _, item := range items {
			item, _ := item.(map[string]any) // Kubernetes applies no item that is not an object
			addObject(objects, item, depth+1)
		}
		return
	}
	if isList {
		obj["items"] = Redacted
	}
	meta, _ := obj["metadata"].(map[string]any)
	key := resourceKey{kind: fmt.Sprint(obj["kind"]), name: fmt.Sprint(meta["name"])}
	if ns, ok := meta["namespace"].(string); ok {
		key.namespace = ns
	}
	objects[key] = obj
}

// diffResource compares one resource; a nil side means absent.
func diffResource(k resourceKey, before, after map[string]any) ResourceDiff {
	d := ResourceDiff{Kind: k.kind, Namespace: k.namespace, Name: k.name}
	if k.kind == "Secret" {
		d.ChangedSecretKeys = redactSecrets(before, after)
	}
	oldText, newText := toYAML(before), toYAML(after)
	switch {
	case before == nil:
		d.Change = Added
	case after == nil:
		d.Change = Removed
	case oldText == newText:
		d.Change = Unchanged
		return d
	default:
		d.Change = Changed
	}
	d.Diff, _ = difflib.GetUnifiedDiffString(difflib.UnifiedDiff{
		A: lines(oldText), B: lines(newText),
		FromFile: "old/" + k.String(), ToFile: "new/" + k.String(), Context: 3,
	})
	return d
}

// secretFields are the fields of a Secret that hold values.
var secretFields = []string{"data", "stringData"}

// redactSecrets replaces every value of the Secrets' data and stringData (in
// place) and returns the keys whose value differs between the two.
func redactSecrets(before, after map[string]any) []string {
	var changed []string
	for _, field := range secretFields {
		oldValues, _ := before[field].(map[string]any)
		newValues, _ := after[field].(map[string]any)
		for key, v := range newValues {
			ov, existed := oldValues[key]
			switch {
			case !existed:
				changed = append(changed, field+"."+key)
				newValues[key] = Redacted
			case !reflect.DeepEqual(ov, v):
				changed = append(changed, field+"."+key)
				newValues[key] = RedactedChanged
			default:
				newValues[key] = Redacted
			}
		}
		for key := range oldValues {
			if _, kept := newValues[key]; !kept {
				changed = append(changed, field+"."+key)
			}
			oldValues[key] = Redacted
		}
	}
	slices.Sort(changed)
	return changed
}

// toYAML renders obj with sorted keys; "" for nil.
func toYAML(obj map[string]any) string {
	if obj == nil {
		return ""
	}
	out, err := yaml.Marshal(obj)
	if err != nil { // values parsed from YAML always marshal back
		return fmt.Sprintf("%v\n", obj)
	}
	return strings.TrimSuffix(string(out), "\n") + "\n"
}

// lines splits text into lines that keep their line ends.
func lines(text string) []string {
	parts := strings.SplitAfter(text, "\n")
	if parts[len(parts)-1] == "" {
		parts = parts[:len(parts)-1]
	}
	return parts
}
