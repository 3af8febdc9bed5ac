// Package releasetest gives tests a release.Client over Helm's in-memory
// release storage and a fake Kubernetes client that accepts everything, as
// Helm's own action tests do.
package releasetest

import (
	"io"
	"log/slog"
	"sync"
	"testing"

	"helm.sh/helm/v3/pkg/action"
	"helm.sh/helm/v3/pkg/chartutil"
	"helm.sh/helm/v3/pkg/kube"
	kubefake "helm.sh/helm/v3/pkg/kube/fake"
	"helm.sh/helm/v3/pkg/storage"
	"helm.sh/helm/v3/pkg/storage/driver"

	"github.com/styrmin/styrmin/release"
)

// Cluster holds the releases of every namespace in memory.
type Cluster struct {
	// Client runs operations on the in-memory releases.
	Client *release.Client

	mu     sync.Mutex
	stores map[string]*storage.Storage
	kube   kube.Interface
}

// New returns an empty Cluster whose Kubernetes client accepts every request
// and sees every resource ready at once.
func New(t testing.TB) *Cluster {
	t.Helper()
	return NewWithKube(t, &kubefake.PrintingKubeClient{Out: io.Discard})
}

// NewWithKube is New with a given fake Kubernetes client, such as a
// kubefake.FailingKubeClient that fails Helm's wait.
func NewWithKube(t testing.TB, kc kube.Interface) *Cluster {
	t.Helper()
	c := &Cluster{stores: map[string]*storage.Storage{}, kube: kc}
	log := slog.New(slog.DiscardHandler)
	c.Client = release.NewWithHelm(func(namespace string) (*action.Configuration, error) {
		return c.Helm(namespace), nil
	}, log)
	return c
}

// Helm returns a Helm configuration on the releases of namespace, for tests
// that act on them with Helm's SDK as a tool other than Styrmin would.
func (c *Cluster) Helm(namespace string) *action.Configuration {
	return &action.Configuration{
		Releases:     c.Storage(namespace),
		KubeClient:   c.kube,
		Capabilities: chartutil.DefaultCapabilities,
		Log:          func(string, ...any) {},
	}
}

// Storage returns the release storage of namespace, for tests that record a
// revision directly (a pending one, say).
func (c *Cluster) Storage(namespace string) *storage.Storage {
	c.mu.Lock()
	defer c.mu.Unlock()
	s, ok := c.stores[namespace]
	if !ok {
		mem := driver.NewMemory()
		mem.SetNamespace(namespace)
		s = storage.Init(mem)
		c.stores[namespace] = s
	}
	return s
}
