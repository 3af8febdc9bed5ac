package kube

import (
	"context"
	"fmt"
	"slices"
	"sync"
	"time"

	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/apimachinery/pkg/util/wait"
	"k8s.io/client-go/informers"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/tools/cache"
)

// Watches keeps one set of shared informers per namespace (Deployments,
// StatefulSets, ReplicaSets, pods, claims, events), started when a release
// of the namespace is first read and stopped once no read asked for it for
// its idle time: every reader of a namespace's releases shares one watch of
// each kind instead of listing them per read.
type Watches struct {
	clientset kubernetes.Interface
	idle      time.Duration
	mu        sync.Mutex
	byNS      map[string]*namespaceWatch
}

// syncPoll is how often a read checks whether a new watch's first lists are in.
const syncPoll = 20 * time.Millisecond

// namespaceWatch is the informers of one namespace.
type namespaceWatch struct {
	factory informers.SharedInformerFactory
	stop    chan struct{}
	used    time.Time
	synced  []cache.InformerSynced
	lists   func() (namespaceObjects, error)
	// lastErr is the informers' last failure to list or watch.
	mu      sync.Mutex
	lastErr error
}

// failed returns the informers' last failure to list or watch, nil for none.
func (nw *namespaceWatch) failed() error {
	nw.mu.Lock()
	defer nw.mu.Unlock()
	return nw.lastErr
}

// NewWatches returns the watches of clientset's cluster, each stopped after idle unused.
func NewWatches(clientset kubernetes.Interface, idle time.Duration) *Watches {
	return &Watches{clientset: clientset, idle: idle, byNS: map[string]*namespaceWatch{}}
}

// ReleaseState is Client.ReleaseState read from namespace's informers,
// which it starts when needed and waits for until their first list is in
// (within ctx).
func (w *Watches) ReleaseState(ctx context.Context, namespace, release string) (*ReleaseState, error) {
	nw, err := w.watch(namespace)
	if err != nil {
		return nil, err
	}
	err = wait.PollUntilContextCancel(ctx, syncPoll, true, func(context.Context) (bool, error) {
		if !slices.ContainsFunc(nw.synced, func(synced cache.InformerSynced) bool { return !synced() }) {
			return true, nil
		}
		return false, nw.failed()
	})
	if err != nil {
		return nil, fmt.Errorf("kube: watch %s: %w", namespace, err)
	}
	o, err := nw.lists()
	if err != nil {
		return nil, fmt.Errorf("kube: watch %s: %w", namespace, err)
	}
	return o.state(namespace, release)
}

// watch returns namespace's informers, started, and stops those idle.
func (w *Watches) watch(namespace string) (*namespaceWatch, error) {
	w.mu.Lock()
	defer w.mu.Unlock()
	now := time.Now()
	for ns, nw := range w.byNS {
		if ns != namespace && now.Sub(nw.used) > w.idle {
			nw.shutdown()
			delete(w.byNS, ns)
		}
	}
	if nw, ok := w.byNS[namespace]; ok {
		nw.used = now
		return nw, nil
	}
	f := informers.NewSharedInformerFactoryWithOptions(w.clientset, 0, informers.WithNamespace(namespace))
	deployments, statefulSets, replicaSets := f.Apps().V1().Deployments(), f.Apps().V1().StatefulSets(), f.Apps().V1().ReplicaSets()
	pods, claims, events := f.Core().V1().Pods(), f.Core().V1().PersistentVolumeClaims(), f.Core().V1().Events()
	nw := &namespaceWatch{factory: f, stop: make(chan struct{}), used: now}
	for _, i := range []cache.SharedIndexInformer{deployments.Informer(), statefulSets.Informer(), replicaSets.Informer(), pods.Informer(), claims.Informer(), events.Informer()} {
		nw.synced = append(nw.synced, i.HasSynced)
		if err := i.SetWatchErrorHandlerWithContext(func(_ context.Context, _ *cache.Reflector, err error) {
			nw.mu.Lock()
			defer nw.mu.Unlock()
			nw.lastErr = err
		}); err != nil {
			return nil, fmt.Errorf("kube: watch %s: %w", namespace, err)
		}
	}
	nw.lists = func() (o namespaceObjects, err error) {
		all := labels.Everything()
		if o.deployments, err = deployments.Lister().Deployments(namespace).List(all); err != nil {
			return o, err
		}
		if o.statefulSets, err = statefulSets.Lister().StatefulSets(namespace).List(all); err != nil {
			return o, err
		}
		if o.replicaSets, err = replicaSets.Lister().ReplicaSets(namespace).List(all); err != nil {
			return o, err
		}
		if o.pods, err = pods.Lister().Pods(namespace).List(all); err != nil {
			return o, err
		}
		if o.claims, err = claims.Lister().PersistentVolumeClaims(namespace).List(all); err != nil {
			return o, err
		}
		o.events, err = events.Lister().Events(namespace).List(all)
		return o, err
	}
	f.Start(nw.stop)
	w.byNS[namespace] = nw
	return nw, nil
}

// shutdown stops the informers and waits for them to end.
func (nw *namespaceWatch) shutdown() {
	close(nw.stop)
	nw.factory.Shutdown()
}

// watching lists the namespaces watched now.
func (w *Watches) watching() []string {
	w.mu.Lock()
	defer w.mu.Unlock()
	var out []string
	for ns := range w.byNS {
		out = append(out, ns)
	}
	return out
}

// Stop stops every watch.
func (w *Watches) Stop() {
	w.mu.Lock()
	defer w.mu.Unlock()
	for ns, nw := range w.byNS {
		nw.shutdown()
		delete(w.byNS, ns)
	}
}
