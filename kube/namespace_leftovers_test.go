package kube_test

import (
	"context"
	"fmt"
	"strconv"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/kubernetes/fake"
	"k8s.io/client-go/metadata"
	metafake "k8s.io/client-go/metadata/fake"
	k8stesting "k8s.io/client-go/testing"

	"github.com/styrmin/styrmin/kube"
)

// servedTypes is what the fake API server serves: the usual namespaced types,
// the derived ones NamespaceLeftovers skips, a type that cannot be deleted
// (metrics), one that cannot be listed (bindings) and a cluster-wide one.
var servedTypes = []*metav1.APIResourceList{
	{GroupVersion: "v1", APIResources: []metav1.APIResource{
		{Name: "configmaps", Kind: "ConfigMap", Namespaced: true, Verbs: verbs},
		{Name: "secrets", Kind: "Secret", Namespaced: true, Verbs: verbs},
		{Name: "serviceaccounts", Kind: "ServiceAccount", Namespaced: true, Verbs: verbs},
		{Name: "persistentvolumeclaims", Kind: "PersistentVolumeClaim", Namespaced: true, Verbs: verbs},
		{Name: "pods", Kind: "Pod", Namespaced: true, Verbs: verbs},
		{Name: "services", Kind: "Service", Namespaced: true, Verbs: verbs},
		{Name: "events", Kind: "Event", Namespaced: true, Verbs: verbs},
		{Name: "endpoints", Kind: "Endpoints", Namespaced: true, Verbs: verbs},
		{Name: "bindings", Kind: "Binding", Namespaced: true, Verbs: metav1.Verbs{"create"}},
		{Name: "nodes", Kind: "Node", Namespaced: false, Verbs: verbs},
	}},
	{GroupVersion: "apps/v1", APIResources: []metav1.APIResource{
		{Name: "deployments", Kind: "Deployment", Namespaced: true, Verbs: verbs},
		{Name: "replicasets", Kind: "ReplicaSet", Namespaced: true, Verbs: verbs},
	}},
	{GroupVersion: "batch/v1", APIResources: []metav1.APIResource{
		{Name: "jobs", Kind: "Job", Namespaced: true, Verbs: verbs},
	}},
	{GroupVersion: "rbac.authorization.k8s.io/v1", APIResources: []metav1.APIResource{
		{Name: "rolebindings", Kind: "RoleBinding", Namespaced: true, Verbs: verbs},
	}},
	{GroupVersion: "discovery.k8s.io/v1", APIResources: []metav1.APIResource{
		{Name: "endpointslices", Kind: "EndpointSlice", Namespaced: true, Verbs: verbs},
	}},
	{GroupVersion: "events.k8s.io/v1", APIResources: []metav1.APIResource{
		{Name: "events", Kind: "Event", Namespaced: true, Verbs: verbs},
	}},
	{GroupVersion: "metrics.k8s.io/v1beta1", APIResources: []metav1.APIResource{
		{Name: "pods", Kind: "PodMetrics", Namespaced: true, Verbs: metav1.Verbs{"get", "list"}},
	}},
}

// verbs are the verbs of a stored type.
var verbs = metav1.Verbs{"create", "delete", "deletecollection", "get", "list", "patch", "update", "watch"}

// leftoversClient is a Client whose API server serves servedTypes and holds
// objects, each stored under its type's resource (the second value).
func leftoversClient(t *testing.T, objects ...stored) (*kube.Client, *metafake.FakeMetadataClient) {
	t.Helper()
	clientset := fake.NewClientset()
	clientset.Resources = servedTypes
	scheme := metafake.NewTestScheme()
	require.NoError(t, metav1.AddMetaToScheme(scheme))
	meta := metafake.NewSimpleMetadataClient(scheme)
	for _, o := range objects {
		require.NoError(t, meta.Tracker().Create(o.resource, o.object, o.object.Namespace))
	}
	return &kube.Client{Clientset: clientset, Metadata: meta}, meta
}

// stored is an object and the resource it is stored under.
type stored struct {
	resource schema.GroupVersionResource
	object   *metav1.PartialObjectMetadata
}

// object is the metadata of an object of resource ("v1/configmaps",
// "apps/v1/deployments") named name in namespace shop, changed by each of with.
func object(resource, kind, name string, with ...func(*metav1.ObjectMeta)) stored {
	parts := strings.Split(resource, "/")
	gvr := schema.GroupVersionResource{Version: parts[len(parts)-2], Resource: parts[len(parts)-1]}
	if len(parts) == 3 {
		gvr.Group = parts[0]
	}
	o := &metav1.PartialObjectMetadata{
		TypeMeta:   metav1.TypeMeta{APIVersion: gvr.GroupVersion().String(), Kind: kind},
		ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: "shop"},
	}
	for _, w := range with {
		w(&o.ObjectMeta)
	}
	return stored{resource: gvr, object: o}
}

// labelled adds the labels kv (key, value, ...).
func labelled(kv ...string) func(*metav1.ObjectMeta) {
	return func(m *metav1.ObjectMeta) {
		if m.Labels == nil {
			m.Labels = map[string]string{}
		}
		for i := 0; i+1 < len(kv); i += 2 {
			m.Labels[kv[i]] = kv[i+1]
		}
	}
}

// ofRelease marks the object as Helm marks the objects of release name.
func ofRelease(name string) func(*metav1.ObjectMeta) {
	return func(m *metav1.ObjectMeta) {
		m.Labels = map[string]string{"app.kubernetes.io/managed-by": "Helm"}
		m.Annotations = map[string]string{"meta.helm.sh/release-name": name, "meta.helm.sh/release-namespace": m.Namespace}
	}
}

// ownedBy adds an owner reference.
func ownedBy(apiVersion, kind, name string) func(*metav1.ObjectMeta) {
	return func(m *metav1.ObjectMeta) {
		m.OwnerReferences = append(m.OwnerReferences, metav1.OwnerReference{APIVersion: apiVersion, Kind: kind, Name: name, UID: types.UID("uid-" + name)})
	}
}

// beingDeleted sets a deletionTimestamp, with finalizers.
func beingDeleted(finalizers ...string) func(*metav1.ObjectMeta) {
	return func(m *metav1.ObjectMeta) {
		m.DeletionTimestamp = &metav1.Time{}
		m.Finalizers = finalizers
	}
}

// inNamespace moves the object to namespace ns.
func inNamespace(ns string) func(*metav1.ObjectMeta) {
	return func(m *metav1.ObjectMeta) { m.Namespace = ns }
}

// kubernetesOwn is what a namespace holds right after its release is
// uninstalled: Kubernetes' own objects, records and derivations, terminating
// pods, and Styrmin's deployer objects.
var kubernetesOwn = []stored{
	object("v1/serviceaccounts", "ServiceAccount", "default"),
	object("v1/configmaps", "ConfigMap", "kube-root-ca.crt"),
	object("v1/events", "Event", "shop-web.17f2"),
	object("events.k8s.io/v1/events", "Event", "shop-web.17f3"),
	object("v1/endpoints", "Endpoints", "shop-web"),
	object("discovery.k8s.io/v1/endpointslices", "EndpointSlice", "shop-web-x7k2p"),
	object("v1/pods", "Pod", "shop-web-6d9f-abcde", ofRelease("shop"), beingDeleted()),
	object("v1/pods", "Pod", "shop-db-0", ofRelease("shop"), beingDeleted("example.com/cleanup")),
	object("v1/serviceaccounts", "ServiceAccount", "styrmin-deployer", labelled(kube.ManagedByLabel, kube.ManagedBy, kube.RoleLabel, kube.RoleDeployer)),
	object("rbac.authorization.k8s.io/v1/rolebindings", "RoleBinding", "styrmin-deployer", labelled(kube.ManagedByLabel, kube.ManagedBy, kube.RoleLabel, kube.RoleDeployer)),
}

func TestANamespaceHoldingOnlyWhatKubernetesPutsInEveryNamespaceIsEmpty(t *testing.T) {
	t.Parallel()
	client, meta := leftoversClient(t, append(kubernetesOwn,
		object("v1/configmaps", "ConfigMap", "theirs", inNamespace("elsewhere")))...)

	left, err := client.NamespaceLeftovers(context.Background(), "shop", nil)
	require.NoError(t, err)
	require.True(t, left.Empty(), "left: %+v", left)
	require.Empty(t, left.Describe(nil))

	for _, a := range meta.Actions() {
		require.Equal(t, "list", a.GetVerb())
		require.Equal(t, "shop", a.GetNamespace())
		require.NotContains(t, []string{"events", "endpoints", "endpointslices", "bindings"}, a.GetResource().Resource,
			"records and derivations of other objects are not even read, nor what cannot be listed or deleted")
		require.NotEqual(t, "metrics.k8s.io", a.GetResource().Group)
	}
}

func TestNamespaceLeftoversNamesWhatWouldBeLostWithTheNamespace(t *testing.T) {
	t.Parallel()
	client, _ := leftoversClient(t, append(kubernetesOwn,
		// Another release: its record, its objects, and what derives from them.
		object("v1/secrets", "Secret", "sh.helm.release.v1.other.v1", labelled("owner", "helm", "name", "other", "status", "deployed")),
		object("apps/v1/deployments", "Deployment", "other-web", ofRelease("other")),
		object("v1/services", "Service", "other-web", ofRelease("other")),
		object("batch/v1/jobs", "Job", "other-job", labelled(kube.ActionJobLabel, kube.ActionJobLabelValue, kube.ManagedByLabel, kube.ManagedBy)),
		object("apps/v1/replicasets", "ReplicaSet", "other-web-6d9f", ownedBy("apps/v1", "Deployment", "other-web")),
		object("v1/pods", "Pod", "other-web-6d9f-abcde", ownedBy("apps/v1", "ReplicaSet", "other-web-6d9f")),
		// Volumes a StatefulSet of the uninstalled release claimed: Helm leaves them.
		object("v1/persistentvolumeclaims", "PersistentVolumeClaim", "data-db-0"),
		object("v1/persistentvolumeclaims", "PersistentVolumeClaim", "data-db-1"),
		// What Helm kept of the uninstalled release (helm.sh/resource-policy: keep); its record is gone.
		object("v1/secrets", "Secret", "shop-credentials", ofRelease("shop")),
		// Someone else's.
		object("v1/configmaps", "ConfigMap", "team-notes"),
		object("v1/configmaps", "ConfigMap", "team-data", ownedBy("v1", "Node", "node-1")),
		object("v1/configmaps", "ConfigMap", "being-orphaned", beingDeleted(metav1.FinalizerOrphanDependents)),
		object("v1/serviceaccounts", "ServiceAccount", "robot", labelled(kube.ManagedByLabel, kube.ManagedBy)),
		// The uninstalled deployment's own, which the caller lets go.
		object("v1/serviceaccounts", "ServiceAccount", "shop-action", labelled(kube.ManagedByLabel, kube.ManagedBy, "styrmin.io/deployment", "7")),
	)...)
	ours := func(l kube.Leftover) bool { return l.Meta.Labels["styrmin.io/deployment"] == "7" }

	left, err := client.NamespaceLeftovers(context.Background(), "shop", ours)
	require.NoError(t, err)
	require.False(t, left.Empty())
	var names []string
	for _, l := range left.Objects {
		names = append(names, l.Kind+" "+l.Meta.Name)
	}
	require.Equal(t, []string{
		"ConfigMap being-orphaned", "ConfigMap team-data", "ConfigMap team-notes", // a cluster-wide owner may outlive the namespace
		"PersistentVolumeClaim data-db-0", "PersistentVolumeClaim data-db-1",
		"Secret sh.helm.release.v1.other.v1", "Secret shop-credentials",
		"ServiceAccount robot", // Styrmin's mark without the deployer role is not enough
		"Service other-web",
		"Deployment other-web",
		"Job other-job", // the action Job Styrmin runs for release other
	}, names, "by type (core first, by group and resource), then name; derived objects are not named")
	require.Equal(t, "other", left.Objects[9].Release())
	require.Equal(t, "other", left.Objects[10].Release())

	note := func(release string) string {
		if release == "other" {
			return "of deployment other"
		}
		return ""
	}
	require.Equal(t, "it still holds Helm release other (of deployment other; 4 objects), 2 PersistentVolumeClaims (data-db-0, data-db-1), "+
		"3 ConfigMaps (being-orphaned, team-data, team-notes), 1 Secret (shop-credentials) and 1 ServiceAccount (robot)", left.Describe(note))
}

func TestDescribeNamesAHandfulOfEachKindWithCounts(t *testing.T) {
	t.Parallel()
	var objects []stored
	for i := range 5 {
		objects = append(objects, object("v1/persistentvolumeclaims", "PersistentVolumeClaim", "data-db-"+strconv.Itoa(i)))
	}
	for _, r := range []string{"a", "b", "c", "d"} {
		objects = append(objects, object("v1/secrets", "Secret", "sh.helm.release.v1."+r+".v1", labelled("owner", "helm", "name", r)))
	}
	client, _ := leftoversClient(t, objects...)

	left, err := client.NamespaceLeftovers(context.Background(), "shop", nil)
	require.NoError(t, err)
	require.Equal(t, "it still holds Helm release a (1 object), Helm release b (1 object), Helm release c (1 object), 1 more Helm release and "+
		"5 PersistentVolumeClaims (data-db-0, data-db-1, data-db-2, …)", left.Describe(nil))
}

func TestNamespaceLeftoversStopsAtItsBudget(t *testing.T) {
	t.Parallel()
	client, meta := leftoversClient(t, object("v1/persistentvolumeclaims", "PersistentVolumeClaim", "data-db-0"))
	configMaps := &pagedConfigMaps{n: 1500}
	client.Metadata = withConfigMaps{FakeMetadataClient: meta, configMaps: configMaps}

	left, err := client.NamespaceLeftovers(context.Background(), "shop", nil)
	require.NoError(t, err)
	require.True(t, left.Truncated)
	require.False(t, left.Empty())
	require.Len(t, left.Objects, kube.LeftoverBudget, "it reads no more than its budget")
	require.Len(t, configMaps.requests, 4)
	for i, r := range configMaps.requests {
		require.EqualValues(t, 250, r.Limit, "in pages of 250")
		require.Equal(t, []string{"", "250", "500", "750"}[i], r.Continue)
	}
	for _, a := range meta.Actions() {
		require.NotEqual(t, "persistentvolumeclaims", a.GetResource().Resource, "nothing is listed once the budget is spent")
	}
	require.Equal(t, "it still holds 1000 ConfigMaps (cm-0000, cm-0001, cm-0002, …), and maybe more (Styrmin stops looking after 1000 objects)", left.Describe(nil))
}

func TestNamespaceLeftoversEndsWhenAServerKeepsSayingContinue(t *testing.T) {
	t.Parallel()
	client, meta := leftoversClient(t)
	configMaps := &pagedConfigMaps{n: 0, endless: true}
	client.Metadata = withConfigMaps{FakeMetadataClient: meta, configMaps: configMaps}

	left, err := client.NamespaceLeftovers(context.Background(), "shop", nil)
	require.NoError(t, err)
	require.True(t, left.Truncated)
	require.Len(t, configMaps.requests, kube.LeftoverBudget, "each empty page that goes on costs one")
}

// withConfigMaps is a metadata client whose ConfigMaps in namespace shop are configMaps.
type withConfigMaps struct {
	*metafake.FakeMetadataClient
	configMaps *pagedConfigMaps
}

// Resource returns configMaps for ConfigMaps, the fake's getter otherwise.
func (c withConfigMaps) Resource(gvr schema.GroupVersionResource) metadata.Getter {
	if gvr.Resource == "configmaps" {
		return configMapsGetter{Getter: c.FakeMetadataClient.Resource(gvr), configMaps: c.configMaps}
	}
	return c.FakeMetadataClient.Resource(gvr)
}

// configMapsGetter is the getter of withConfigMaps' ConfigMaps.
type configMapsGetter struct {
	metadata.Getter
	configMaps *pagedConfigMaps
}

// Namespace returns the paged ConfigMaps.
func (g configMapsGetter) Namespace(string) metadata.ResourceInterface {
	return pagedList{ResourceInterface: g.Getter.Namespace("shop"), configMaps: g.configMaps}
}

// pagedList lists pagedConfigMaps.
type pagedList struct {
	metadata.ResourceInterface
	configMaps *pagedConfigMaps
}

// List serves a page.
func (l pagedList) List(_ context.Context, opts metav1.ListOptions) (*metav1.PartialObjectMetadataList, error) {
	return l.configMaps.page(opts), nil
}

// pagedConfigMaps are n ConfigMaps served in pages as the API server serves
// them (limit, continue), with each request's options recorded; endless
// always answers "continue".
type pagedConfigMaps struct {
	n        int
	endless  bool
	requests []metav1.ListOptions
}

// page is the page opts asks for.
func (p *pagedConfigMaps) page(opts metav1.ListOptions) *metav1.PartialObjectMetadataList {
	p.requests = append(p.requests, opts)
	from, _ := strconv.Atoi(opts.Continue)
	to := min(from+int(opts.Limit), p.n)
	list := &metav1.PartialObjectMetadataList{}
	for i := from; i < to; i++ {
		list.Items = append(list.Items, *object("v1/configmaps", "ConfigMap", fmt.Sprintf("cm-%04d", i)).object)
	}
	if to < p.n || p.endless {
		list.Continue = strconv.Itoa(to)
	}
	return list
}

func TestATypeStyrminMayNotListKeepsTheNamespace(t *testing.T) {
	t.Parallel()
	client, meta := leftoversClient(t, kubernetesOwn...)
	meta.PrependReactor("list", "persistentvolumeclaims", func(k8stesting.Action) (bool, runtime.Object, error) {
		return true, nil, apierrors.NewForbidden(schema.GroupResource{Resource: "persistentvolumeclaims"}, "", fmt.Errorf("RBAC says no"))
	})
	meta.PrependReactor("list", "rolebindings", func(k8stesting.Action) (bool, runtime.Object, error) {
		return true, nil, apierrors.NewNotFound(schema.GroupResource{Group: "rbac.authorization.k8s.io", Resource: "rolebindings"}, "")
	})

	left, err := client.NamespaceLeftovers(context.Background(), "shop", nil)
	require.NoError(t, err)
	require.Empty(t, left.Objects)
	require.Equal(t, []kube.Unchecked{{Resource: "persistentvolumeclaims", Reason: "forbidden"}}, left.Unchecked, "a type gone meanwhile holds nothing")
	require.False(t, left.Empty(), "what Styrmin cannot see may be there")
	require.Equal(t, "Styrmin could not list 1 type, which may hold more: persistentvolumeclaims (forbidden)", left.Describe(nil))
}

func TestNamespaceLeftoversFailsWhenTheClusterDoesNotAnswer(t *testing.T) {
	t.Parallel()
	client, meta := leftoversClient(t)
	meta.PrependReactor("list", "secrets", func(k8stesting.Action) (bool, runtime.Object, error) {
		return true, nil, apierrors.NewServiceUnavailable("etcd is down")
	})
	_, err := client.NamespaceLeftovers(context.Background(), "shop", nil)
	require.ErrorContains(t, err, "kube: list secrets in namespace shop: etcd is down")
}
