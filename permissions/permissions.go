// Package permissions says what a rendered chart creates beyond its
// release's namespace: the cluster-scoped kinds it holds (and the kinds of
// unknown scope), the RBAC rules and bindings it grants, the namespaced
// objects it puts in other namespaces and what its pods need beyond Pod
// Security's baseline level. An admin approves such a set per driver
// version; an install, upgrade or rollback needs every item of its manifest
// approved (Set.Missing). A chart that renders a Helm release record is
// refused whatever was approved.
//
// Names are not compared: a release's objects are named after the release,
// so the same driver version renders other names in every deployment. What
// is compared is what the names cannot hide: the kinds, each rule's API
// group, resource and verb, and each binding's role and subject (the chart's
// own Role or ServiceAccount, or a named one outside the chart).
package permissions

import (
	"cmp"
	"fmt"
	"slices"
	"strings"

	"github.com/styrmin/styrmin"
)

// Scope is where objects of a kind live.
type Scope string

// The scopes of a kind.
const (
	ScopeCluster   Scope = "cluster"
	ScopeNamespace Scope = "namespace"
	// ScopeUnknown is a kind Styrmin does not know (a custom resource): it
	// needs approval as a cluster-scoped kind does.
	ScopeUnknown Scope = "unknown"
)

// Set is what a manifest creates that needs an admin's approval.
type Set struct {
	// Kinds are the cluster-scoped kinds and the kinds of unknown scope.
	Kinds []Kind `json:"kinds,omitempty"`
	// Rules are the RBAC rules of the Roles and ClusterRoles, one per API
	// group, resource and verb.
	Rules []Rule `json:"rules,omitempty"`
	// Aggregations are the label selectors of ClusterRoles that aggregate
	// other ClusterRoles' rules.
	Aggregations []string `json:"aggregations,omitempty"`
	// Bindings are the RoleBindings and ClusterRoleBindings, one per subject.
	Bindings []Binding `json:"bindings,omitempty"`
	// Outside are the namespaced objects the chart puts in another namespace than the release's.
	Outside []Outside `json:"outside,omitempty"`
	// PodSecurity are what the chart's pods need beyond Pod Security's baseline level, such as "privileged container" or "host network".
	PodSecurity []string `json:"pod_security,omitempty"`
}

// Outside is a kind of namespaced object in another namespace.
type Outside struct {
	Group     string `json:"group"`
	Kind      string `json:"kind"`
	Namespace string `json:"namespace"`
}

// Kind is a kind of object the manifest holds that is not known to stay in
// the release's namespace.
type Kind struct {
	Group string `json:"group"`
	Kind  string `json:"kind"`
	Scope Scope  `json:"scope"`
}

// Rule is one verb on one resource that a Role or ClusterRole grants.
type Rule struct {
	// Role is "Role" or "ClusterRole".
	Role string `json:"role"`
	// Namespace is where a Role is, "" for the release's namespace (and
	// for every ClusterRole).
	Namespace string `json:"namespace,omitempty"`
	// APIGroup is "" for the core group; "*" is every group.
	APIGroup string `json:"api_group"`
	// Resource is a resource ("pods", "pods/exec", "*") or, for a
	// non-resource URL, the URL ("/metrics").
	Resource string `json:"resource"`
	Verb     string `json:"verb"`
}

// Binding is one subject that a RoleBinding or ClusterRoleBinding binds to a role.
type Binding struct {
	// Binding is "RoleBinding" or "ClusterRoleBinding".
	Binding string `json:"binding"`
	// Namespace is where a RoleBinding is, "" for the release's namespace.
	Namespace string `json:"namespace,omitempty"`
	// RoleKind is "Role" or "ClusterRole"; RoleName is "" when the role is
	// the chart's own (its rules are in Set.Rules), else the role's name
	// (such as "cluster-admin").
	RoleKind string `json:"role_kind"`
	RoleName string `json:"role_name,omitempty"`
	// SubjectKind is "ServiceAccount", "User" or "Group". SubjectName is ""
	// for a ServiceAccount of the chart's in the release's namespace.
	SubjectKind string `json:"subject_kind"`
	SubjectName string `json:"subject_name,omitempty"`
	// SubjectNamespace is a ServiceAccount's namespace when it is not the
	// release's.
	SubjectNamespace string `json:"subject_namespace,omitempty"`
}

// Empty reports whether the set holds nothing that needs approval.
func (s Set) Empty() bool {
	return len(s.Kinds) == 0 && len(s.Rules) == 0 && len(s.Aggregations) == 0 && len(s.Bindings) == 0 &&
		len(s.Outside) == 0 && len(s.PodSecurity) == 0
}

// Missing returns the items of need that approved does not cover. A "*" in
// an approved rule covers any group, resource or verb; everything else
// (another namespace's kinds, pod security needs too) must be equal.
func Missing(need, approved Set) Set {
	var out Set
	for _, k := range need.Kinds {
		if !slices.Contains(approved.Kinds, k) {
			out.Kinds = append(out.Kinds, k)
		}
	}
	for _, r := range need.Rules {
		if !slices.ContainsFunc(approved.Rules, func(a Rule) bool { return a.covers(r) }) {
			out.Rules = append(out.Rules, r)
		}
	}
	for _, a := range need.Aggregations {
		if !slices.Contains(approved.Aggregations, a) {
			out.Aggregations = append(out.Aggregations, a)
		}
	}
	for _, b := range need.Bindings {
		if !slices.Contains(approved.Bindings, b) {
			out.Bindings = append(out.Bindings, b)
		}
	}
	for _, o := range need.Outside {
		if !slices.Contains(approved.Outside, o) {
			out.Outside = append(out.Outside, o)
		}
	}
	for _, p := range need.PodSecurity {
		if !slices.Contains(approved.PodSecurity, p) {
			out.PodSecurity = append(out.PodSecurity, p)
		}
	}
	return out
}

// covers reports whether an approved rule a grants at least rule r.
func (a Rule) covers(r Rule) bool {
	match := func(approved, need string) bool { return approved == "*" || approved == need }
	return a.Role == r.Role && a.Namespace == r.Namespace &&
		match(a.APIGroup, r.APIGroup) && match(a.Resource, r.Resource) && match(a.Verb, r.Verb)
}

// String describes a kind: "ClusterRoleBinding (rbac.authorization.k8s.io)".
func (k Kind) String() string {
	s := k.Kind + " (" + groupName(k.Group) + ")"
	if k.Scope == ScopeUnknown {
		s += ", of a scope Styrmin does not know"
	}
	return s
}

// String describes a rule: "ClusterRole: list secrets (core)".
func (r Rule) String() string {
	return fmt.Sprintf("%s%s: %s %s (%s)", r.Role, inNamespace(r.Namespace), r.Verb, r.Resource, groupName(r.APIGroup))
}

// String describes a binding: "ClusterRoleBinding of ClusterRole cluster-admin
// to the chart's ServiceAccount".
func (b Binding) String() string {
	role := "the chart's " + b.RoleKind
	if b.RoleName != "" {
		role = b.RoleKind + " " + b.RoleName
	}
	subject := b.SubjectKind + " " + b.SubjectName
	switch {
	case b.SubjectKind == "ServiceAccount" && b.SubjectName == "":
		subject = "the chart's ServiceAccount" + inNamespace(b.SubjectNamespace)
	case b.SubjectNamespace != "":
		subject += " in namespace " + b.SubjectNamespace
	}
	return fmt.Sprintf("%s%s of %s to %s", b.Binding, inNamespace(b.Namespace), role, subject)
}

// String describes a kind in another namespace: "ConfigMap (core) in
// namespace kube-system".
func (o Outside) String() string {
	return o.Kind + " (" + groupName(o.Group) + ")" + inNamespace(o.Namespace)
}

// Lines describes every item of the set, one a line, in a stable order.
func (s Set) Lines() []string {
	var lines []string
	for _, k := range s.Kinds {
		lines = append(lines, "creates "+k.String())
	}
	for _, r := range s.Rules {
		lines = append(lines, "grants "+r.String())
	}
	for _, a := range s.Aggregations {
		lines = append(lines, "aggregates the ClusterRoles selected by "+a)
	}
	for _, b := range s.Bindings {
		lines = append(lines, "binds "+b.String())
	}
	for _, o := range s.Outside {
		lines = append(lines, "creates "+o.String())
	}
	for _, p := range s.PodSecurity {
		lines = append(lines, "runs pods beyond Pod Security's baseline: "+p)
	}
	return lines
}

// Union returns the items of a and of b, sorted, each once.
func Union(a, b Set) Set {
	out := Set{
		Kinds:        slices.Concat(a.Kinds, b.Kinds),
		Rules:        slices.Concat(a.Rules, b.Rules),
		Aggregations: slices.Concat(a.Aggregations, b.Aggregations),
		Bindings:     slices.Concat(a.Bindings, b.Bindings),
		Outside:      slices.Concat(a.Outside, b.Outside),
		PodSecurity:  slices.Concat(a.PodSecurity, b.PodSecurity),
	}
	out.normalize()
	return out
}

// Validate checks a set given by a user (items to approve): every item
// names what it is; it returns an EINVALID error naming the first that does not.
func (s Set) Validate() error {
	bad := func(format string, args ...any) error {
		return styrmin.Errorf(styrmin.EINVALID, "Not a permission item: "+format+".", args...)
	}
	for _, k := range s.Kinds {
		if k.Kind == "" || !slices.Contains([]Scope{ScopeCluster, ScopeUnknown}, k.Scope) {
			return bad("a kind needs a kind and the scope cluster or unknown (got %q, %q)", k.Kind, k.Scope)
		}
	}
	for _, r := range s.Rules {
		if !slices.Contains([]string{"Role", "ClusterRole"}, r.Role) || r.Resource == "" || r.Verb == "" {
			return bad("a rule needs a role (Role or ClusterRole), a resource and a verb (got %q, %q, %q)", r.Role, r.Resource, r.Verb)
		}
	}
	for _, a := range s.Aggregations {
		if a == "" {
			return bad("an aggregation needs a label selector")
		}
	}
	for _, b := range s.Bindings {
		if !slices.Contains([]string{"RoleBinding", "ClusterRoleBinding"}, b.Binding) ||
			!slices.Contains([]string{"Role", "ClusterRole"}, b.RoleKind) ||
			!slices.Contains([]string{"ServiceAccount", "User", "Group"}, b.SubjectKind) {
			return bad("a binding needs a binding (RoleBinding or ClusterRoleBinding), a role kind (Role or ClusterRole) "+
				"and a subject kind (ServiceAccount, User or Group) (got %q, %q, %q)", b.Binding, b.RoleKind, b.SubjectKind)
		}
	}
	for _, o := range s.Outside {
		if o.Kind == "" || o.Namespace == "" {
			return bad("an object in another namespace needs a kind and a namespace (got %q, %q)", o.Kind, o.Namespace)
		}
	}
	for _, p := range s.PodSecurity {
		if !validPodSecurity(p) {
			return bad("%q is not something a pod needs beyond Pod Security's baseline (%s, or \"capability NAME\" or \"sysctl NAME\" outside baseline's)",
				p, strings.Join(podWords, ", "))
		}
	}
	if s.Empty() {
		return styrmin.Errorf(styrmin.EINVALID, "No permission items to approve were given.")
	}
	return nil
}

// RefusedError is a manifest's need that its driver version's approval does
// not cover; its message names every missing item, those the version's
// default values create apart from those that only the operation's values do.
type RefusedError struct {
	Driver, Version string
	// Missing is every item not approved.
	Missing Set
	// Defaults is what the version's chart creates with its default values
	// (its recorded permissions): the items of Missing outside it are
	// created only by the operation's other values.
	Defaults Set
}

// Beyond is the items of Missing that the chart creates only with the
// operation's values, not with its default values.
func (e *RefusedError) Beyond() Set {
	return Missing(e.Missing, e.Defaults)
}

// Error names the driver version and what it needs that no admin approved.
func (e *RefusedError) Error() string {
	beyond := e.Beyond()
	own := Missing(e.Missing, beyond)
	var parts []string
	if !own.Empty() {
		parts = append(parts, fmt.Sprintf("The chart of driver %s %s creates what no admin approved for this driver version: %s.",
			e.Driver, e.Version, strings.Join(own.Lines(), "; ")))
	}
	if !beyond.Empty() {
		parts = append(parts, fmt.Sprintf("With these values, the chart of driver %s %s creates more than with its default values, and no admin approved it for this driver version: %s.",
			e.Driver, e.Version, strings.Join(beyond.Lines(), "; ")))
	}
	return strings.Join(parts, " ") + " An admin can approve it for this driver version (the driver's page, Permissions); nothing was applied."
}

// Check returns a *RefusedError when approved does not cover need;
// defaults is what the version's chart creates with its default values.
func Check(driver, version string, need, approved, defaults Set) error {
	if missing := Missing(need, approved); !missing.Empty() {
		return &RefusedError{Driver: driver, Version: version, Missing: missing, Defaults: defaults}
	}
	return nil
}

// groupName names an API group, "core" for the empty one.
func groupName(g string) string {
	if g == "" {
		return "core"
	}
	return g
}

// inNamespace is " in namespace ns", or "" for the release's namespace.
func inNamespace(ns string) string {
	if ns == "" {
		return ""
	}
	return " in namespace " + ns
}

// normalize sorts the set and removes duplicates.
func (s *Set) normalize() {
	s.Kinds = sortedUnique(s.Kinds, func(a, b Kind) int {
		return cmp.Or(cmp.Compare(a.Group, b.Group), cmp.Compare(a.Kind, b.Kind), cmp.Compare(a.Scope, b.Scope))
	})
	s.Rules = sortedUnique(s.Rules, func(a, b Rule) int {
		return cmp.Or(cmp.Compare(a.Role, b.Role), cmp.Compare(a.Namespace, b.Namespace),
			cmp.Compare(a.APIGroup, b.APIGroup), cmp.Compare(a.Resource, b.Resource), cmp.Compare(a.Verb, b.Verb))
	})
	s.Aggregations = sortedUnique(s.Aggregations, strings.Compare)
	s.Bindings = sortedUnique(s.Bindings, func(a, b Binding) int {
		return cmp.Or(cmp.Compare(a.Binding, b.Binding), cmp.Compare(a.Namespace, b.Namespace),
			cmp.Compare(a.RoleKind, b.RoleKind), cmp.Compare(a.RoleName, b.RoleName),
			cmp.Compare(a.SubjectKind, b.SubjectKind), cmp.Compare(a.SubjectNamespace, b.SubjectNamespace),
			cmp.Compare(a.SubjectName, b.SubjectName))
	})
	s.Outside = sortedUnique(s.Outside, func(a, b Outside) int {
		return cmp.Or(cmp.Compare(a.Group, b.Group), cmp.Compare(a.Kind, b.Kind), cmp.Compare(a.Namespace, b.Namespace))
	})
	s.PodSecurity = sortedUnique(s.PodSecurity, strings.Compare)
}

// sortedUnique sorts s and drops equal neighbours.
func sortedUnique[T comparable](s []T, compare func(a, b T) int) []T {
	slices.SortFunc(s, compare)
	return slices.Compact(s)
}
