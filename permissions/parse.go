package permissions

import (
	"bufio"
	"encoding/json"
	"errors"
	"io"
	"strings"

	yamlv2 "go.yaml.in/yaml/v2"
	rbacv1 "k8s.io/api/rbac/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"
	k8syaml "k8s.io/apimachinery/pkg/util/yaml"
	kjson "sigs.k8s.io/json"
	"sigs.k8s.io/yaml"

	"github.com/styrmin/styrmin"
)

// Budgets of a manifest: what Parse reads at most. A chart that renders
// more is refused, not cut short.
const (
	// MaxManifestBytes bounds the whole rendered manifest (CRDs and hooks included).
	MaxManifestBytes = 32 << 20
	// MaxObjects bounds the objects of a manifest, list items included.
	MaxObjects = 10000
	// MaxListDepth bounds lists inside lists: a list's items at this depth
	// may not be lists.
	MaxListDepth = 4
	// jsonSniff is how much of a manifest Kubernetes' decoder looks at to
	// tell a JSON stream from YAML.
	jsonSniff = 4096
)

// object is what Parse reads of one Kubernetes object.
type object struct {
	APIVersion      string                  `json:"apiVersion"`
	Kind            string                  `json:"kind"`
	Metadata        metav1.ObjectMeta       `json:"metadata"`
	Rules           []rbacv1.PolicyRule     `json:"rules"`
	AggregationRule *rbacv1.AggregationRule `json:"aggregationRule"`
	Subjects        []rbacv1.Subject        `json:"subjects"`
	RoleRef         rbacv1.RoleRef          `json:"roleRef"`
	// Items makes the object a list, as Kubernetes' resource builder
	// (which Helm applies with) sees any object with an items array.
	Items []json.RawMessage `json:"items"`
	// Type is a Secret's type.
	Type string `json:"type"`
	// group is the API group of APIVersion.
	group string
}

// Parse reads a rendered manifest (YAML or JSON documents, as Helm applies
// them) of a release in namespace and returns what it needs approved.
// It reads documents as Helm's Kubernetes client does, and the items of
// lists, with keys read case-sensitively as Kubernetes reads them. A
// manifest past the budgets, that does not parse, or whose keys could be
// read otherwise (checkKeys) is an EINVALID error; one that holds a Helm
// release record is an EFORBIDDEN error.
func Parse(manifest, namespace string) (Set, error) {
	if len(manifest) > MaxManifestBytes {
		return Set{}, styrmin.Errorf(styrmin.EINVALID, "The chart renders %d bytes, more than the %d MiB Styrmin reads to check what it creates.", len(manifest), MaxManifestBytes>>20)
	}
	p := parser{namespace: namespace, roles: map[string]bool{}, accounts: map[string]bool{}}
	err := Documents(manifest, func(doc []byte) error {
		if err := checkKeys(doc); err != nil {
			return err
		}
		return p.read(doc, 0)
	})
	if err != nil {
		return Set{}, err
	}
	return p.set(), nil
}

// Documents calls read with each document of manifest as JSON, split and
// converted as Kubernetes' YAML-or-JSON decoder (which Helm's Kubernetes
// client applies with) does, but refusing what that decoder reads in a way
// of its own: a YAML mapping with a key twice (it keeps the last one) and a
// stream that starts with "{" but is not JSON throughout (it reads on as
// YAML). Helm's manifests start with "---", so they are YAML.
func Documents(manifest string, read func(doc []byte) error) error {
	if k8syaml.IsJSONBuffer([]byte(manifest[:min(len(manifest), jsonSniff)])) {
		dec := json.NewDecoder(strings.NewReader(manifest))
		for {
			var doc json.RawMessage
			err := dec.Decode(&doc)
			if errors.Is(err, io.EOF) {
				return nil
			}
			if err != nil {
				return notParsing(err)
			}
			if err := read(doc); err != nil {
				return err
			}
		}
	}
	docs := k8syaml.NewYAMLReader(bufio.NewReader(strings.NewReader(manifest)))
	for {
		text, err := docs.Read()
		if errors.Is(err, io.EOF) {
			return nil
		}
		if err != nil {
			return notParsing(err)
		}
		doc, err := yaml.YAMLToJSONStrict(text)
		if typeErr := (*yamlv2.TypeError)(nil); errors.As(err, &typeErr) {
			return yamlDuplicateKey(text, typeErr)
		}
		if err != nil {
			return notParsing(err)
		}
		if err := read(doc); err != nil {
			return err
		}
	}
}

// yamlDuplicateKey is the error of a YAML document with a key twice in a
// mapping, which the YAML decoder reports as a type error.
func yamlDuplicateKey(text []byte, err *yamlv2.TypeError) error {
	key := "a key"
	if m := yamlDuplicate.FindStringSubmatch(strings.Join(err.Errors, "\n")); m != nil {
		key = "the key " + m[1]
	}
	object := "an object"
	if doc, err := yaml.YAMLToJSON(text); err == nil {
		object = describeDocument(doc)
	}
	return duplicateKey(key, "in "+object)
}

// notParsing is the error of a manifest that does not parse.
func notParsing(err error) error {
	return styrmin.Errorf(styrmin.EINVALID, "The chart's rendered manifest does not parse: %v.", err)
}

// parser gathers a manifest's objects.
type parser struct {
	namespace string
	objects   []object
	// roles and accounts are the chart's own Roles, ClusterRoles and
	// ServiceAccounts, by key.
	roles, accounts map[string]bool
	// pods are what the pods of the objects need beyond baseline.
	pods []string
}

// read adds one document's object (or list's items) at list depth.
func (p *parser) read(raw json.RawMessage, depth int) error {
	if len(raw) == 0 || string(raw) == "null" {
		return nil
	}
	o, err := decode(raw)
	if err != nil {
		return err
	}
	if o.Items != nil {
		if depth >= MaxListDepth {
			return styrmin.Errorf(styrmin.EINVALID, "The chart's rendered manifest nests lists more than %d deep.", MaxListDepth)
		}
		for _, item := range o.Items {
			if err := p.read(item, depth+1); err != nil {
				return err
			}
		}
		return nil
	}
	if o.Kind == "" {
		return nil
	}
	if len(p.objects) >= MaxObjects {
		return styrmin.Errorf(styrmin.EINVALID, "The chart renders more than %d objects, more than Styrmin reads to check what it creates.", MaxObjects)
	}
	if o.group == "" && (o.Kind == "Secret" || o.Kind == "ConfigMap") && helmRecord(o) {
		return styrmin.Errorf(styrmin.EFORBIDDEN, "The chart renders a Helm release record (the %s %q), which Styrmin never applies: "+
			"a chart could forge its own release's history that way.", o.Kind, o.Metadata.Name)
	}
	templates, err := podTemplates(o.group, o.Kind, raw)
	if err != nil {
		return styrmin.Errorf(styrmin.EINVALID, "The chart's rendered manifest holds %s whose pod template does not parse: %v.", describe(o.Kind, o.Metadata.Name), err)
	}
	for _, t := range templates {
		p.pods = append(p.pods, podNeeds(t)...)
	}
	o.Metadata.Namespace = p.relative(o.Metadata.Namespace)
	p.objects = append(p.objects, o)
	switch o.Kind {
	case "Role", "ClusterRole":
		p.roles[roleKey(o.Kind, o.Metadata.Namespace, o.Metadata.Name)] = true
	case "ServiceAccount":
		p.accounts[o.Metadata.Namespace+"/"+o.Metadata.Name] = true
	}
	return nil
}

// decode reads an object as Kubernetes does, case-sensitively, after
// checking its keys (checkFields).
func decode(raw json.RawMessage) (object, error) {
	var fields, meta map[string]json.RawMessage
	err := kjson.UnmarshalCaseSensitivePreserveInts(raw, &fields)
	if m := fields["metadata"]; err == nil && len(m) > 0 && m[0] == '{' {
		err = kjson.UnmarshalCaseSensitivePreserveInts(m, &meta)
	}
	var o object
	if err == nil {
		err = kjson.UnmarshalCaseSensitivePreserveInts(raw, &o)
	}
	if err != nil {
		return o, styrmin.Errorf(styrmin.EINVALID, "The chart's rendered manifest holds an object that does not parse: %v.", err)
	}
	if err := checkFields(fields, meta, describe(o.Kind, o.Metadata.Name)); err != nil {
		return o, err
	}
	o.group = groupOf(o.APIVersion)
	return o, nil
}

// groupOf is the API group of an apiVersion; a bad one keeps its text as the group.
func groupOf(apiVersion string) string {
	gv, _ := schema.ParseGroupVersion(apiVersion)
	if gv.Group == "" && strings.Contains(apiVersion, "/") {
		return apiVersion
	}
	return gv.Group
}

// helmRecord reports whether a Secret or ConfigMap is a Helm release record,
// as Helm's storage drivers write them: of Helm's type, or with Helm's labels.
func helmRecord(o object) bool {
	labels := o.Metadata.Labels
	_, name := labels["name"]
	_, version := labels["version"]
	return o.Type == "helm.sh/release.v1" || labels["owner"] == "helm" && name && version
}

// relative is ns, or "" when it is the release's namespace.
func (p *parser) relative(ns string) string {
	if ns == p.namespace {
		return ""
	}
	return ns
}

// roleKey identifies a role: a ClusterRole by its name only.
func roleKey(kind, ns, name string) string {
	if kind == "ClusterRole" {
		ns = ""
	}
	return kind + "/" + ns + "/" + name
}

// set is what the gathered objects need approved.
func (p *parser) set() Set {
	s := Set{PodSecurity: p.pods}
	for _, o := range p.objects {
		switch scope := scopeOf(o.group, o.Kind); {
		case scope != ScopeNamespace:
			s.Kinds = append(s.Kinds, Kind{Group: o.group, Kind: o.Kind, Scope: scope})
		case o.Metadata.Namespace != "":
			s.Outside = append(s.Outside, Outside{Group: o.group, Kind: o.Kind, Namespace: o.Metadata.Namespace})
		}
		if o.group != rbacv1.GroupName {
			continue
		}
		switch o.Kind {
		case "Role", "ClusterRole":
			s.Rules = append(s.Rules, p.rules(o)...)
			if o.AggregationRule != nil {
				for _, sel := range o.AggregationRule.ClusterRoleSelectors {
					s.Aggregations = append(s.Aggregations, metav1.FormatLabelSelector(&sel))
				}
			}
		case "RoleBinding", "ClusterRoleBinding":
			s.Bindings = append(s.Bindings, p.bindings(o)...)
		}
	}
	s.normalize()
	return s
}

// rules flattens a role's rules to one per group, resource and verb.
func (p *parser) rules(o object) []Rule {
	var out []Rule
	ns := o.Metadata.Namespace
	if o.Kind == "ClusterRole" {
		ns = ""
	}
	for _, r := range o.Rules {
		for _, verb := range r.Verbs {
			for _, url := range r.NonResourceURLs {
				out = append(out, Rule{Role: o.Kind, Namespace: ns, Resource: url, Verb: verb})
			}
			for _, g := range r.APIGroups {
				for _, res := range r.Resources {
					out = append(out, Rule{Role: o.Kind, Namespace: ns, APIGroup: g, Resource: res, Verb: verb})
				}
			}
		}
	}
	return out
}

// bindings lists a binding's subjects, naming its role and subjects unless
// they are the chart's own.
func (p *parser) bindings(o object) []Binding {
	ns := o.Metadata.Namespace
	if o.Kind == "ClusterRoleBinding" {
		ns = ""
	}
	role := o.RoleRef.Name
	if p.roles[roleKey(o.RoleRef.Kind, ns, role)] {
		role = ""
	}
	var out []Binding
	for _, sub := range o.Subjects {
		b := Binding{Binding: o.Kind, Namespace: ns, RoleKind: o.RoleRef.Kind, RoleName: role, SubjectKind: sub.Kind, SubjectName: sub.Name}
		if sub.Kind == "ServiceAccount" {
			subNS := sub.Namespace
			if subNS == "" && o.Kind == "RoleBinding" {
				subNS = o.Metadata.Namespace
			} else {
				subNS = p.relative(subNS)
			}
			b.SubjectNamespace = subNS
			if p.accounts[subNS+"/"+sub.Name] {
				b.SubjectName = ""
			}
		}
		out = append(out, b)
	}
	return out
}
