package kube

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/client-go/discovery"
)

// RoleLabel and RoleDeployer mark, with ManagedByLabel=ManagedBy, what
// Styrmin puts into a namespace for its deployer (package deployer: its
// RoleBinding): Styrmin's own, which goes with the namespace.
const (
	RoleLabel    = "styrmin.io/role"
	RoleDeployer = "deployer"
)

// LeftoverBudget is how many objects NamespaceLeftovers reads at most, over
// all its requests: a namespace that holds more is not empty anyway.
const LeftoverBudget = 1000

// leftoverPage is how many objects one list request asks for at most.
const leftoverPage = 250

// Leftover is one object a namespace still holds.
type Leftover struct {
	// Resource is the object's type as the API server serves it.
	Resource schema.GroupVersionResource
	// Kind is the object's kind, "PersistentVolumeClaim".
	Kind string
	// Meta is the object's metadata (name, labels, annotations, owners).
	Meta metav1.ObjectMeta
}

// Helm's marks: the annotation on every object of a release, and the labels
// on the release's records (Secrets, or ConfigMaps with Helm's configmap driver).
const (
	helmReleaseAnnotation = "meta.helm.sh/release-name"
	helmRecordOwnerLabel  = "owner"
	helmRecordOwner       = "helm"
	helmRecordNameLabel   = "name"
)

// Release is the name of the Helm release the object belongs to, by Helm's
// annotation (or, for the release's own records, their labels), or the
// release an action Job runs for (ActionJobName); "" when none.
func (l Leftover) Release() string {
	if l.Meta.Labels[helmRecordOwnerLabel] == helmRecordOwner && l.Meta.Labels[helmRecordNameLabel] != "" {
		return l.Meta.Labels[helmRecordNameLabel]
	}
	if l.Resource.GroupResource() == (schema.GroupResource{Group: "batch", Resource: "jobs"}) && l.Meta.Labels[ActionJobLabel] == ActionJobLabelValue {
		if release, ok := strings.CutSuffix(l.Meta.Name, actionJobSuffix); ok {
			return release
		}
	}
	return l.Meta.Annotations[helmReleaseAnnotation]
}

// isReleaseRecord reports whether the object is one of Helm's records of a release.
func (l Leftover) isReleaseRecord() bool {
	return l.Resource.Group == "" && (l.Resource.Resource == "secrets" || l.Resource.Resource == "configmaps") &&
		l.Meta.Labels[helmRecordOwnerLabel] == helmRecordOwner && l.Meta.Labels[helmRecordNameLabel] != ""
}

// Unchecked is a resource type NamespaceLeftovers could not list.
type Unchecked struct {
	// Resource names the type as RBAC rules do ("persistentvolumeclaims",
	// "ingresses.networking.k8s.io"), or the API group version whose
	// discovery failed ("metrics.k8s.io/v1beta1").
	Resource string
	// Reason says why in a few words: "forbidden", "its API did not answer".
	Reason string
}

// Leftovers is what a namespace still holds, beside what goes with it anyway
// (see NamespaceLeftovers).
type Leftovers struct {
	// Objects are the objects left, by group (core first), resource and name.
	Objects []Leftover
	// Unchecked are the types that could not be listed: they may hold more.
	Unchecked []Unchecked
	// Truncated is set when the listing stopped at LeftoverBudget objects:
	// there may be more.
	Truncated bool
}

// Empty reports whether nothing is left: every type was listed, in full,
// and held nothing but what goes with the namespace.
func (l Leftovers) Empty() bool {
	return len(l.Objects) == 0 && len(l.Unchecked) == 0 && !l.Truncated
}

// derivedTypes are types whose objects Kubernetes records about others or
// derives from them: they never keep a namespace.
var derivedTypes = []schema.GroupResource{
	{Resource: "events"}, {Group: "events.k8s.io", Resource: "events"},
	{Resource: "endpoints"}, {Group: "discovery.k8s.io", Resource: "endpointslices"},
}

// everyNamespaceHas are the objects Kubernetes puts into every namespace.
var everyNamespaceHas = []struct{ resource, name string }{
	{"serviceaccounts", "default"},
	{"configmaps", "kube-root-ca.crt"},
}

// NamespaceLeftovers lists what namespace ns holds that would be lost with
// it: every namespaced type the API server serves that can be listed and
// deleted, in pages, LeftoverBudget objects at most in all. It leaves out
// what goes with the namespace anyway:
//   - Events, Endpoints and EndpointSlices (records and derivations of other objects);
//   - the ServiceAccount default and the ConfigMap kube-root-ca.crt, which
//     Kubernetes puts into every namespace;
//   - Styrmin's deployer objects (RoleLabel=RoleDeployer with ManagedByLabel=ManagedBy);
//   - objects being deleted (a deletionTimestamp): they go whatever Styrmin
//     does, so pods of an uninstalled release that are still terminating after
//     the uninstall's wait do not keep the namespace; one whose deletion
//     orphans its dependents does, for those stay;
//   - objects whose owners (ownerReferences) are all of namespaced types, so
//     in this namespace: the garbage collector deletes them with their owners
//     (a ReplicaSet's pods, a Deployment's ReplicaSets), and an owner still
//     there is a leftover itself;
//   - whatever ignore (nil: nothing) says goes with the namespace.
//
// A type the client may not list, or whose API did not answer discovery, is
// Unchecked; a type that disappears meanwhile holds nothing. Other errors
// (the cluster did not answer) are returned.
func (c *Client) NamespaceLeftovers(ctx context.Context, ns string, ignore func(Leftover) bool) (Leftovers, error) {
	if c.Metadata == nil {
		return Leftovers{}, errors.New("kube: namespace leftovers: the client has no metadata client")
	}
	var out Leftovers
	types, namespaced, err := c.namespacedTypes(ctx)
	var failed *discovery.ErrGroupDiscoveryFailed
	switch {
	case errors.As(err, &failed):
		for gv := range failed.Groups {
			out.Unchecked = append(out.Unchecked, Unchecked{Resource: gv.String(), Reason: "its API did not answer"})
		}
	case err != nil:
		return Leftovers{}, fmt.Errorf("kube: discover the namespaced types: %w", err)
	}
	goes := func(l Leftover) bool {
		return goesWithNamespace(l, namespaced) || (ignore != nil && ignore(l))
	}
	budget := LeftoverBudget
	for _, t := range types {
		if budget == 0 {
			out.Truncated = true
			break
		}
		objects, unchecked, truncated, err := c.listType(ctx, ns, t, &budget)
		if err != nil {
			return Leftovers{}, err
		}
		if unchecked != "" {
			out.Unchecked = append(out.Unchecked, Unchecked{Resource: t.resource.GroupResource().String(), Reason: unchecked})
		}
		out.Truncated = out.Truncated || truncated
		for _, l := range objects {
			if !goes(l) {
				out.Objects = append(out.Objects, l)
			}
		}
	}
	slices.SortFunc(out.Objects, func(a, b Leftover) int {
		return cmp.Or(strings.Compare(a.Resource.Group, b.Resource.Group), strings.Compare(a.Resource.Resource, b.Resource.Resource),
			strings.Compare(a.Meta.Name, b.Meta.Name))
	})
	slices.SortFunc(out.Unchecked, func(a, b Unchecked) int { return strings.Compare(a.Resource, b.Resource) })
	return out, nil
}

// listedType is a namespaced type to list, with its kind.
type listedType struct {
	resource schema.GroupVersionResource
	kind     string
}

// namespacedTypes returns the namespaced types that can be listed and
// deleted, by group (core first) and resource, and every namespaced kind by group ("apps",
// "ReplicaSet"). With an ErrGroupDiscoveryFailed it also returns what the
// other groups said.
func (c *Client) namespacedTypes(ctx context.Context) ([]listedType, map[schema.GroupKind]bool, error) {
	lists, err := discovery.ServerPreferredNamespacedResourcesWithContext(ctx, discovery.ToDiscoveryInterfaceWithContext(c.Clientset.Discovery()))
	if err != nil && !discovery.IsGroupDiscoveryFailedError(err) {
		return nil, nil, err
	}
	var types []listedType
	namespaced := map[schema.GroupKind]bool{}
	for _, list := range lists {
		gv, perr := schema.ParseGroupVersion(list.GroupVersion)
		if perr != nil {
			return nil, nil, perr
		}
		for _, r := range list.APIResources {
			namespaced[schema.GroupKind{Group: gv.Group, Kind: r.Kind}] = true
			gr := schema.GroupResource{Group: gv.Group, Resource: r.Name}
			if slices.Contains(derivedTypes, gr) || !slices.Contains(r.Verbs, "list") || !slices.Contains(r.Verbs, "delete") {
				continue
			}
			types = append(types, listedType{resource: gv.WithResource(r.Name), kind: r.Kind})
		}
	}
	slices.SortFunc(types, func(a, b listedType) int {
		return cmp.Or(strings.Compare(a.resource.Group, b.resource.Group), strings.Compare(a.resource.Resource, b.resource.Resource))
	})
	return types, namespaced, err
}

// listType lists the objects of type t in ns, page by page, taking at most
// *budget objects off it. It returns why it could not list the type ("" when
// it could), and whether objects were left unread for want of budget.
func (c *Client) listType(ctx context.Context, ns string, t listedType, budget *int) (objects []Leftover, unchecked string, truncated bool, err error) {
	opts := metav1.ListOptions{}
	for {
		opts.Limit = int64(min(leftoverPage, *budget))
		list, err := c.Metadata.Resource(t.resource).Namespace(ns).List(ctx, opts)
		switch {
		case apierrors.IsNotFound(err): // the type went away meanwhile
			return objects, "", false, nil
		case apierrors.IsForbidden(err):
			return objects, "forbidden", false, nil
		case apierrors.IsMethodNotSupported(err):
			return objects, "not listable", false, nil
		case err != nil:
			return nil, "", false, fmt.Errorf("kube: list %s in namespace %s: %w", t.resource.GroupResource(), ns, err)
		}
		items := list.Items
		if len(items) > *budget {
			items, truncated = items[:*budget], true
		}
		*budget -= len(items)
		for _, item := range items {
			objects = append(objects, Leftover{Resource: t.resource, Kind: t.kind, Meta: item.ObjectMeta})
		}
		if list.Continue == "" || truncated {
			return objects, "", truncated, nil
		}
		if len(items) == 0 { // an empty page that goes on costs one, so that no server keeps the listing going
			*budget--
		}
		if *budget == 0 {
			return objects, "", true, nil
		}
		opts.Continue = list.Continue
	}
}

// goesWithNamespace reports whether l goes with its namespace anyway, given
// every namespaced kind (see NamespaceLeftovers).
func goesWithNamespace(l Leftover, namespaced map[schema.GroupKind]bool) bool {
	m := l.Meta
	if m.DeletionTimestamp != nil && !slices.Contains(m.Finalizers, metav1.FinalizerOrphanDependents) {
		return true
	}
	if m.Labels[ManagedByLabel] == ManagedBy && m.Labels[RoleLabel] == RoleDeployer {
		return true
	}
	if l.Resource.Group == "" && slices.Contains(everyNamespaceHas, struct{ resource, name string }{l.Resource.Resource, m.Name}) {
		return true
	}
	if len(m.OwnerReferences) == 0 {
		return false
	}
	for _, o := range m.OwnerReferences {
		gv, err := schema.ParseGroupVersion(o.APIVersion)
		if err != nil || !namespaced[schema.GroupKind{Group: gv.Group, Kind: o.Kind}] {
			return false // owned by a cluster-wide object, or one unknown: it may outlive the namespace
		}
	}
	return true
}
