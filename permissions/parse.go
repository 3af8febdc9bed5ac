package permissions

import (
	"encoding/json"
	"errors"
	"io"
	"strings"

	rbacv1 "k8s.io/api/rbac/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"
	k8syaml "k8s.io/apimachinery/pkg/util/yaml"

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
}

// Parse reads a rendered manifest (YAML or JSON documents, as Helm applies
// them) of a release in namespace and returns what it needs approved.
// It reads documents as Helm's Kubernetes client does, and the items of
// lists. A manifest past the budgets, or that does not parse, is an
// EINVALID error.
func Parse(manifest, namespace string) (Set, error) {
	if len(manifest) > MaxManifestBytes {
		return Set{}, styrmin.Errorf(styrmin.EINVALID, "The chart renders %d bytes, more than the %d MiB Styrmin reads to check what it creates.", len(manifest), MaxManifestBytes>>20)
	}
	p := parser{namespace: namespace, roles: map[string]bool{}, accounts: map[string]bool{}}
	dec := k8syaml.NewYAMLOrJSONDecoder(strings.NewReader(manifest), 4096)
	for {
		var raw json.RawMessage
		err := dec.Decode(&raw)
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			return Set{}, styrmin.Errorf(styrmin.EINVALID, "The chart's rendered manifest does not parse: %v.", err)
		}
		if err := p.read(raw, 0); err != nil {
			return Set{}, err
		}
	}
	return p.set(), nil
}

// parser gathers a manifest's objects.
type parser struct {
	namespace string
	objects   []object
	// roles and accounts are the chart's own Roles, ClusterRoles and
	// ServiceAccounts, by key.
	roles, accounts map[string]bool
}

// read adds one document's object (or list's items) at list depth.
func (p *parser) read(raw json.RawMessage, depth int) error {
	if len(raw) == 0 || string(raw) == "null" {
		return nil
	}
	var o object
	if err := json.Unmarshal(raw, &o); err != nil {
		return styrmin.Errorf(styrmin.EINVALID, "The chart's rendered manifest holds an object that does not parse: %v.", err)
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
	var s Set
	for _, o := range p.objects {
		gv, _ := schema.ParseGroupVersion(o.APIVersion) // a bad apiVersion keeps its text as the group
		if gv.Group == "" && strings.Contains(o.APIVersion, "/") {
			gv.Group = o.APIVersion
		}
		if scope := scopeOf(gv.Group, o.Kind); scope != ScopeNamespace {
			s.Kinds = append(s.Kinds, Kind{Group: gv.Group, Kind: o.Kind, Scope: scope})
		}
		if gv.Group != rbacv1.GroupName {
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
