package kube

import (
	"cmp"
	"context"
	"fmt"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/client-go/discovery"
	"k8s.io/client-go/discovery/cached/memory"
	"k8s.io/client-go/dynamic"
	"k8s.io/client-go/rest"
	"k8s.io/client-go/restmapper"
)

// ObjectRef names an object of any kind.
type ObjectRef struct {
	APIVersion, Kind string
	// Namespace is the object's; "" for a cluster-scoped object.
	Namespace, Name string
}

// ObjectRead is one object read by ObjectReader.Get: Object is nil when the
// cluster has no such object and Err is nil; Err says why it could not be read.
type ObjectRead struct {
	Object map[string]any
	Err    error
}

// ObjectReader reads objects of any kind (a release's manifest names them
// by apiVersion and kind), as a given identity.
type ObjectReader struct {
	config *rest.Config
	mapper meta.ResettableRESTMapper
}

// NewObjectReader returns a reader on the cluster of config, which maps kinds
// to resources through discovery (cached, asked again for a kind it does
// not know). It does not contact the cluster.
func NewObjectReader(config *rest.Config) (*ObjectReader, error) {
	disc, err := discovery.NewDiscoveryClientForConfig(config)
	if err != nil {
		return nil, fmt.Errorf("kube: discovery client: %w", err)
	}
	return &ObjectReader{config: config, mapper: restmapper.NewDeferredDiscoveryRESTMapper(memory.NewMemCacheClient(disc))}, nil
}

// Get reads each object of refs as the identity as, one GET each, in order;
// a namespaced object without a namespace is read in namespace.
func (r *ObjectReader) Get(ctx context.Context, as rest.ImpersonationConfig, namespace string, refs []ObjectRef) ([]ObjectRead, error) {
	config := rest.CopyConfig(r.config)
	config.Impersonate = as
	client, err := dynamic.NewForConfig(config)
	if err != nil {
		return nil, fmt.Errorf("kube: dynamic client: %w", err)
	}
	out := make([]ObjectRead, len(refs))
	for i, ref := range refs {
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		out[i] = r.get(ctx, client, namespace, ref)
	}
	return out, nil
}

// get reads one object.
func (r *ObjectReader) get(ctx context.Context, client dynamic.Interface, namespace string, ref ObjectRef) ObjectRead {
	mapping, err := r.mapping(ref)
	if err != nil {
		return ObjectRead{Err: fmt.Errorf("kube: the cluster serves no %s %s: %w", ref.APIVersion, ref.Kind, err)}
	}
	resource := client.Resource(mapping.Resource)
	var res dynamic.ResourceInterface = resource
	if mapping.Scope.Name() == meta.RESTScopeNameNamespace {
		res = resource.Namespace(cmp.Or(ref.Namespace, namespace))
	}
	obj, err := res.Get(ctx, ref.Name, metav1.GetOptions{})
	switch {
	case apierrors.IsNotFound(err):
		return ObjectRead{}
	case err != nil:
		return ObjectRead{Err: fmt.Errorf("kube: get %s %s: %w", ref.Kind, ref.Name, err)}
	}
	return ObjectRead{Object: obj.Object}
}

// mapping maps ref's kind to its resource, asking discovery again once for
// a kind it did not know (a CRD installed since).
func (r *ObjectReader) mapping(ref ObjectRef) (*meta.RESTMapping, error) {
	gv, err := schema.ParseGroupVersion(ref.APIVersion)
	if err != nil {
		return nil, err
	}
	gk := schema.GroupKind{Group: gv.Group, Kind: ref.Kind}
	mapping, err := r.mapper.RESTMapping(gk, gv.Version)
	if meta.IsNoMatchError(err) {
		r.mapper.Reset()
		mapping, err = r.mapper.RESTMapping(gk, gv.Version)
	}
	return mapping, err
}
