// Package kube is Styrmin's client-go connection to the configured Kubernetes cluster.
package kube

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"strings"
	"time"

	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/metadata"
	"k8s.io/client-go/rest"
	"k8s.io/client-go/tools/clientcmd"

	"github.com/styrmin/styrmin/version"
)

// ErrNotConfigured means no kubeconfig was given or found and the process does
// not run inside a cluster.
var ErrNotConfigured = errors.New("kube: no cluster configured: set KUBECONFIG to a kubeconfig file (`make run` starts a local cluster when it is unset)")

// Client is a connection to one cluster.
type Client struct {
	// Config is the REST config, for building other clients (dynamic, Helm).
	Config *rest.Config
	// Clientset is the typed client.
	Clientset kubernetes.Interface
	// Metadata reads any type's objects as metadata only (NamespaceLeftovers).
	Metadata metadata.Interface
	// OwnNamespace is the namespace Styrmin runs in when it runs inside the
	// cluster (its service account's), "" otherwise.
	OwnNamespace string
}

// serviceAccountNamespace is where Kubernetes tells a pod its namespace.
const serviceAccountNamespace = "/var/run/secrets/kubernetes.io/serviceaccount/namespace"

// Connect loads the kubeconfig at kubeconfigPath, using its context
// contextName (its current context when ""); with an empty path it follows the
// usual rules ($KUBECONFIG, then ~/.kube/config, then the in-cluster service
// account), and returns ErrNotConfigured when there is none. It does not
// contact the cluster: see Health.
func Connect(kubeconfigPath, contextName string) (*Client, error) {
	rules := clientcmd.NewDefaultClientConfigLoadingRules()
	rules.ExplicitPath = kubeconfigPath
	overrides := &clientcmd.ConfigOverrides{CurrentContext: contextName}
	config, err := clientcmd.NewNonInteractiveDeferredLoadingClientConfig(rules, overrides).ClientConfig()
	if errors.Is(err, clientcmd.ErrEmptyConfig) && contextName == "" {
		if config, err = rest.InClusterConfig(); err != nil {
			return nil, ErrNotConfigured
		}
		return inCluster(config)
	}
	if err != nil {
		return nil, fmt.Errorf("kube: load kubeconfig %q: %w", kubeconfigPath, err)
	}
	return New(config)
}

// New returns a Client for the cluster of config, which sends Styrmin's
// User-Agent unless config names one.
func New(config *rest.Config) (*Client, error) {
	if config.UserAgent == "" {
		config = rest.CopyConfig(config)
		config.UserAgent = version.UserAgent()
	}
	clientset, err := kubernetes.NewForConfig(config)
	if err != nil {
		return nil, fmt.Errorf("kube: %w", err)
	}
	meta, err := metadata.NewForConfig(config)
	if err != nil {
		return nil, fmt.Errorf("kube: %w", err)
	}
	return &Client{Config: config, Clientset: clientset, Metadata: meta}, nil
}

// inCluster returns the Client of a pod's service account, knowing the pod's namespace.
func inCluster(config *rest.Config) (*Client, error) {
	c, err := New(config)
	if err != nil {
		return nil, err
	}
	ns, err := os.ReadFile(serviceAccountNamespace)
	if err != nil {
		return nil, fmt.Errorf("kube: the namespace Styrmin runs in: %w", err)
	}
	c.OwnNamespace = strings.TrimSpace(string(ns))
	return c, nil
}

// Server is the API server URL the client talks to.
func (c *Client) Server() string { return c.Config.Host }

// ServerVersion asks the API server for its version, e.g. "v1.37.2".
func (c *Client) ServerVersion(ctx context.Context) (string, error) {
	body, err := c.Clientset.Discovery().RESTClient().Get().AbsPath("/version").Do(ctx).Raw()
	if err != nil {
		return "", fmt.Errorf("kube: server version from %s: %w", c.Server(), err)
	}
	var info struct {
		GitVersion string `json:"gitVersion"`
	}
	if err := json.Unmarshal(body, &info); err != nil {
		return "", fmt.Errorf("kube: server version from %s: %w", c.Server(), err)
	}
	return info.GitVersion, nil
}

// Health is the outcome of one reachability check, for /readyz and the log.
type Health struct {
	Server    string `json:"server"`
	Reachable bool   `json:"reachable"`
	Version   string `json:"version,omitempty"`
	Error     string `json:"error,omitempty"`
}

// Health checks whether the cluster answers within timeout and reports its version.
func (c *Client) Health(ctx context.Context, timeout time.Duration) Health {
	ctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	h := Health{Server: c.Server()}
	version, err := c.ServerVersion(ctx)
	if err != nil {
		h.Error = err.Error()
		return h
	}
	h.Reachable, h.Version = true, version
	return h
}
