package release

import (
	"cmp"
	"fmt"
	"log/slog"

	"helm.sh/helm/v3/pkg/action"
	"helm.sh/helm/v3/pkg/storage"
	"helm.sh/helm/v3/pkg/storage/driver"
	"k8s.io/apimachinery/pkg/api/meta"
	"k8s.io/cli-runtime/pkg/genericclioptions"
	"k8s.io/client-go/discovery"
	"k8s.io/client-go/discovery/cached/memory"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/rest"
	"k8s.io/client-go/restmapper"
	"k8s.io/client-go/tools/clientcmd"
	clientcmdapi "k8s.io/client-go/tools/clientcmd/api"
)

// discoveryBurst lets discovery read every API group at once, as kubectl does.
const discoveryBurst = 300

// DefaultMaxHistory is how many revisions Helm keeps of a release when
// Options gives no bound: older ones, with the secret values they hold,
// are deleted as new ones are made.
const DefaultMaxHistory = 10

// Options says how a Client acts on the cluster.
type Options struct {
	// ActAs, when set, is the identity Helm acts as in a namespace when it
	// changes or renders a release there: every object it creates, updates
	// or deletes and every `lookup` of a chart (see package deployer).
	ActAs func(namespace string) rest.ImpersonationConfig
	// RecordsAs, when set, is the identity Helm reads and writes its records
	// of releases as in a namespace (deployer.RecordsImpersonation, whose
	// writes the records policy lets through; deployer.ReviewerImpersonation
	// for a process that never writes them); config's own when nil.
	RecordsAs func(namespace string) rest.ImpersonationConfig
	// MaxHistory bounds the revisions Helm keeps per release
	// (DefaultMaxHistory when zero).
	MaxHistory int
}

// MaxHistory is how many revisions Helm keeps of each release.
func (c *Client) MaxHistory() int { return cmp.Or(c.maxHistory, DefaultMaxHistory) }

// New returns a Client for the cluster of config (from a kubeconfig, a
// --kube-context or the in-cluster service account). Discovery is cached for
// the Client's lifetime and refreshed by Helm when it installs CRDs. It does
// not contact the cluster.
func New(config *rest.Config, opts Options, log *slog.Logger) (*Client, error) {
	dconfig := rest.CopyConfig(config)
	dconfig.Burst = discoveryBurst
	dc, err := discovery.NewDiscoveryClientForConfig(dconfig)
	if err != nil {
		return nil, fmt.Errorf("release: discovery client: %w", err)
	}
	records, err := kubernetes.NewForConfig(config)
	if err != nil {
		return nil, fmt.Errorf("release: client of Helm's records: %w", err)
	}
	cached := memory.NewMemCacheClient(dc)
	mapper := restmapper.NewShortcutExpander(restmapper.NewDeferredDiscoveryRESTMapper(cached), cached, nil)
	configure := func(namespace string) (*action.Configuration, error) {
		actor := config
		if opts.ActAs != nil {
			actor = rest.CopyConfig(config)
			actor.Impersonate = opts.ActAs(namespace)
		}
		getter := &restGetter{config: actor, namespace: namespace, discovery: cached, mapper: mapper}
		cfg := new(action.Configuration)
		if err := cfg.Init(getter, namespace, storageDriver, helmLog(log, namespace)); err != nil {
			return nil, fmt.Errorf("release: helm configuration for namespace %s: %w", namespace, err)
		}
		var recordsClient kubernetes.Interface = records
		if opts.RecordsAs != nil {
			recorder := rest.CopyConfig(config)
			recorder.Impersonate = opts.RecordsAs(namespace)
			asRecorder, err := kubernetes.NewForConfig(recorder) // err of this call only: configure runs on many goroutines
			if err != nil {
				return nil, fmt.Errorf("release: client of Helm's records in namespace %s: %w", namespace, err)
			}
			recordsClient = asRecorder
		}
		cfg.Releases = storage.Init(driver.NewSecrets(recordsClient.CoreV1().Secrets(namespace)))
		cfg.Releases.Log = cfg.Log
		return cfg, nil
	}
	c := NewWithHelm(configure, log)
	c.maxHistory = cmp.Or(opts.MaxHistory, DefaultMaxHistory)
	return c, nil
}

// restGetter gives Helm the clients of a rest.Config, with a shared cached
// discovery client and a default namespace.
type restGetter struct {
	config    *rest.Config
	namespace string
	discovery discovery.CachedDiscoveryInterface
	mapper    meta.RESTMapper
}

var _ genericclioptions.RESTClientGetter = (*restGetter)(nil)

// ToRESTConfig returns a copy of the config.
func (g *restGetter) ToRESTConfig() (*rest.Config, error) { return rest.CopyConfig(g.config), nil }

// ToDiscoveryClient returns the shared cached discovery client.
func (g *restGetter) ToDiscoveryClient() (discovery.CachedDiscoveryInterface, error) {
	return g.discovery, nil
}

// ToRESTMapper returns the shared mapper over the cached discovery.
func (g *restGetter) ToRESTMapper() (meta.RESTMapper, error) { return g.mapper, nil }

// ToRawKubeConfigLoader returns a loader that only knows the namespace.
func (g *restGetter) ToRawKubeConfigLoader() clientcmd.ClientConfig {
	return namespaceConfig{getter: g}
}

// namespaceConfig is the clientcmd.ClientConfig of a restGetter: Helm reads
// the default namespace from it.
type namespaceConfig struct{ getter *restGetter }

// RawConfig returns an empty kubeconfig: there is none behind a rest.Config.
func (n namespaceConfig) RawConfig() (clientcmdapi.Config, error) {
	return *clientcmdapi.NewConfig(), nil
}

// ClientConfig returns a copy of the rest.Config.
func (n namespaceConfig) ClientConfig() (*rest.Config, error) { return n.getter.ToRESTConfig() }

// Namespace returns the getter's namespace.
func (n namespaceConfig) Namespace() (string, bool, error) { return n.getter.namespace, false, nil }

// ConfigAccess returns the default loading rules; nothing is persisted through them.
func (n namespaceConfig) ConfigAccess() clientcmd.ConfigAccess {
	return clientcmd.NewDefaultClientConfigLoadingRules()
}
