package drift

import (
	"crypto/sha256"
	"encoding/base64"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"hash"
	"maps"
	"slices"
	"strconv"

	"k8s.io/apimachinery/pkg/api/resource"
)

// Change says how a live object differs from the manifest.
type Change string

// The changes of an object.
const (
	// Changed: a field the manifest sets holds another value live.
	Changed Change = "changed"
	// Deleted: the object is not in the cluster.
	Deleted Change = "deleted"
)

// Masked replaces a Secret's value in a field's difference.
const Masked = "<secret>"

// MaxValueBytes bounds the text of one value in a field's difference.
const MaxValueBytes = 200

// MaxFields bounds the fields listed for one object; the rest are counted.
const MaxFields = 50

// FieldDiff is one field the manifest sets that holds another value live.
type FieldDiff struct {
	// Path is the field, such as spec.replicas or spec.template.spec.containers[0].image.
	Path string `json:"path"`
	// Want is the manifest's value, Have the live one, as JSON ("" when
	// absent), shortened to MaxValueBytes; both Masked for a Secret's value.
	Want string `json:"want"`
	Have string `json:"have"`
}

// ObjectDiff is how one live object differs from the manifest.
type ObjectDiff struct {
	Ref
	Change Change `json:"change"`
	// ResourceVersion is the live object's, "" when it is Deleted.
	ResourceVersion string `json:"resourceVersion,omitempty"`
	// Fields are the fields that differ, at most MaxFields; FieldsLeftOut
	// counts the others.
	Fields        []FieldDiff `json:"fields,omitempty"`
	FieldsLeftOut int         `json:"fieldsLeftOut,omitempty"`
	// Fingerprint identifies this exact difference (see Compare): the same
	// object differing in the same way has the same one.
	Fingerprint string `json:"-"`
}

// deletedFingerprint is the fingerprint of a Deleted object.
const deletedFingerprint = "deleted"

// Options says which differences are no drift.
type Options struct {
	// Stopped are the workloads (Kind and Name; namespace ignored) a stop
	// scaled to 0: their spec.replicas is not compared.
	Stopped []Ref
}

// Compare returns how live differs from want, nil when it does not: live is
// the object the cluster holds (nil when there is none), as the dynamic
// client decodes it. Only the fields want sets are compared; a Secret's
// data and stringData are compared as the cluster stores them (stringData
// merged into data) and never shown; apiVersion and kind name the live
// object (the caller reads it by them), and status is the cluster's.
//
// The diff's Fingerprint is a SHA-256 over every differing field's path
// with its full manifest and live values (fields left out included), so
// any further change to a compared field changes it; a Secret's values
// never enter it: its live resourceVersion does instead (a Secret has no
// status, so that changes only when its data or metadata do).
func Compare(want Object, live map[string]any, opts Options) *ObjectDiff {
	if live == nil {
		return &ObjectDiff{Ref: want.Ref, Change: Deleted, Fingerprint: deletedFingerprint}
	}
	live = normalized(live)
	c := &comparison{sum: sha256.New()}
	if isSecret(want.Ref) {
		c.secret(want.Fields, live)
	}
	for _, key := range slices.Sorted(maps.Keys(want.Fields)) {
		if key == "status" || key == "apiVersion" || key == "kind" || (isSecret(want.Ref) && (key == "data" || key == "stringData")) {
			continue
		}
		if key == "spec" && stopped(want.Ref, opts.Stopped) {
			c.walk("spec", withoutReplicas(want.Fields[key]), live[key])
			continue
		}
		c.walk(key, want.Fields[key], live[key])
	}
	if len(c.fields) == 0 {
		return nil
	}
	meta, _ := live["metadata"].(map[string]any)
	rv, _ := meta["resourceVersion"].(string)
	if isSecret(want.Ref) {
		c.hashed("resourceVersion", rv)
	}
	return &ObjectDiff{Ref: want.Ref, Change: Changed, ResourceVersion: rv, Fields: c.fields, FieldsLeftOut: c.leftOut,
		Fingerprint: hex.EncodeToString(c.sum.Sum(nil))}
}

// comparison collects the fields that differ, and their fingerprint.
type comparison struct {
	fields  []FieldDiff
	leftOut int
	sum     hash.Hash
}

// hashed adds parts to the fingerprint, each length-prefixed so that no two
// lists of parts hash alike.
func (c *comparison) hashed(parts ...string) {
	for _, p := range parts {
		fmt.Fprintf(c.sum, "%d:%s;", len(p), p)
	}
}

// add records a field that differs.
func (c *comparison) add(path string, want, have any, masked bool) {
	if masked {
		c.hashed(path)
	} else {
		c.hashed(path, fullText(want), fullText(have))
	}
	if len(c.fields) == MaxFields {
		c.leftOut++
		return
	}
	f := FieldDiff{Path: path, Want: text(want), Have: text(have)}
	if masked {
		f.Want, f.Have = mask(want), mask(have)
	}
	c.fields = append(c.fields, f)
}

// walk compares want, set by the manifest at path, with have.
func (c *comparison) walk(path string, want, have any) {
	switch w := want.(type) {
	case map[string]any:
		h, ok := have.(map[string]any)
		if !ok {
			if len(w) > 0 || !absent(have) {
				c.add(path, want, have, false)
			}
			return
		}
		for _, key := range slices.Sorted(maps.Keys(w)) {
			c.walk(path+"."+key, w[key], h[key])
		}
	case []any:
		h, ok := have.([]any)
		if !ok || len(h) != len(w) {
			if len(w) > 0 || !absent(have) {
				c.add(path, want, have, false)
			}
			return
		}
		for i := range w {
			c.walk(fmt.Sprintf("%s[%d]", path, i), w[i], h[i])
		}
	default:
		if !sameScalar(want, have) {
			c.add(path, want, have, false)
		}
	}
}

// secret compares a Secret's data (with stringData merged in, base64 as the
// cluster stores it) key by key, masking every value.
func (c *comparison) secret(want, live map[string]any) {
	data := map[string]any{}
	if d, ok := want["data"].(map[string]any); ok {
		maps.Copy(data, d)
	}
	if sd, ok := want["stringData"].(map[string]any); ok {
		for k, v := range sd {
			s, _ := v.(string)
			data[k] = base64.StdEncoding.EncodeToString([]byte(s))
		}
	}
	have, _ := live["data"].(map[string]any)
	for _, key := range slices.Sorted(maps.Keys(data)) {
		if !sameScalar(data[key], have[key]) {
			c.add("data."+key, data[key], have[key], true)
		}
	}
}

// isSecret reports whether r is a core Secret.
func isSecret(r Ref) bool { return r.APIVersion == "v1" && r.Kind == "Secret" }

// stopped reports whether r is one of the stopped workloads.
func stopped(r Ref, workloads []Ref) bool {
	return slices.ContainsFunc(workloads, func(w Ref) bool { return w.Kind == r.Kind && w.Name == r.Name })
}

// withoutReplicas is spec without its replicas.
func withoutReplicas(spec any) any {
	m, ok := spec.(map[string]any)
	if !ok {
		return spec
	}
	m = maps.Clone(m)
	delete(m, "replicas")
	return m
}

// absent reports whether a live value is missing or empty, as the API
// server drops an empty field the manifest sets.
func absent(v any) bool {
	switch v := v.(type) {
	case nil:
		return true
	case map[string]any:
		return len(v) == 0
	case []any:
		return len(v) == 0
	}
	return false
}

// sameScalar reports whether two scalar values are the same to Kubernetes:
// equal, a zero value the API server dropped, or the same quantity written
// two ways (500m and 0.5, 1Gi and 1024Mi, 1 and "1").
func sameScalar(want, have any) bool {
	if want == have {
		return true
	}
	if have == nil {
		return want == nil || want == false || want == "" || want == float64(0)
	}
	w, wok := quantity(want)
	h, hok := quantity(have)
	return wok && hok && w.Cmp(h) == 0
}

// quantity reads v as a resource quantity: a number, or a string that is one.
func quantity(v any) (resource.Quantity, bool) {
	var s string
	switch v := v.(type) {
	case float64:
		s = strconv.FormatFloat(v, 'f', -1, 64)
	case string:
		s = v
	default:
		return resource.Quantity{}, false
	}
	q, err := resource.ParseQuantity(s)
	return q, err == nil
}

// normalized is live as JSON decodes it (its int64s as float64s, as the
// manifest's numbers are).
func normalized(live map[string]any) map[string]any {
	j, err := json.Marshal(live)
	if err != nil {
		return live
	}
	var out map[string]any
	if json.Unmarshal(j, &out) != nil {
		return live
	}
	return out
}

// fullText is v as JSON, "" when absent.
func fullText(v any) string {
	if v == nil {
		return ""
	}
	j, err := json.Marshal(v)
	if err != nil {
		return fmt.Sprint(v)
	}
	return string(j)
}

// text is v as JSON, "" when absent, shortened to MaxValueBytes.
func text(v any) string {
	j := fullText(v)
	if len(j) > MaxValueBytes {
		return j[:MaxValueBytes] + "…"
	}
	return j
}

// mask is Masked for a value that is there, "" for one that is not.
func mask(v any) string {
	if v == nil {
		return ""
	}
	return Masked
}
