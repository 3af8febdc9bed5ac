package controlplane

import (
	"context"
	"crypto/tls"
	"fmt"
	"net/http"
	"time"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/tools/clientcmd"
)

// adminClient talks to the starting cluster as the admin user.
type adminClient struct {
	core kubernetes.Interface
}

func newAdminClient(kubeconfig string) (*adminClient, error) {
	config, err := clientcmd.BuildConfigFromFlags("", kubeconfig)
	if err != nil {
		return nil, fmt.Errorf("load %s: %w", kubeconfig, err)
	}
	config.Timeout = 10 * time.Second
	core, err := kubernetes.NewForConfig(config)
	if err != nil {
		return nil, fmt.Errorf("kubernetes client: %w", err)
	}
	return &adminClient{core: core}, nil
}

func (c *adminClient) apiserverReady(ctx context.Context) error {
	body, err := c.core.Discovery().RESTClient().Get().AbsPath("/readyz").DoRaw(ctx)
	if err != nil {
		return fmt.Errorf("readyz: %w: %s", err, body)
	}
	return nil
}

// setup creates the Node kwok manages; with beside set (a real node runs),
// the kwok node is tainted SimulatedNodeTaint so that pods land on the real
// node.
func (c *adminClient) setup(ctx context.Context, beside bool) error {
	node := &corev1.Node{ObjectMeta: metav1.ObjectMeta{
		Name: NodeName,
		Labels: map[string]string{
			"kubernetes.io/hostname": NodeName,
			"kubernetes.io/os":       "linux",
			"kubernetes.io/arch":     "amd64",
			"type":                   "kwok",
		},
		Annotations: map[string]string{"kwok.x-k8s.io/node": "fake"},
	}}
	if beside {
		node.Spec.Taints = []corev1.Taint{{Key: SimulatedNodeTaint, Value: "true", Effect: corev1.TaintEffectNoSchedule}}
	}
	if _, err := c.core.CoreV1().Nodes().Create(ctx, node, metav1.CreateOptions{}); err != nil && !apierrors.IsAlreadyExists(err) {
		return fmt.Errorf("create node %s: %w", NodeName, err)
	}
	return nil
}

// nodeReady returns a readiness check that wants the Node name Ready.
func (c *adminClient) nodeReady(name string) func(context.Context) error {
	return func(ctx context.Context) error {
		node, err := c.core.CoreV1().Nodes().Get(ctx, name, metav1.GetOptions{})
		if err != nil {
			return err
		}
		for _, cond := range node.Status.Conditions {
			if cond.Type == corev1.NodeReady && cond.Status == corev1.ConditionTrue {
				return nil
			}
		}
		return fmt.Errorf("node %s not Ready yet", name)
	}
}

func (c *adminClient) defaultServiceAccount(ctx context.Context) error {
	_, err := c.core.CoreV1().ServiceAccounts(metav1.NamespaceDefault).Get(ctx, "default", metav1.GetOptions{})
	return err
}

// httpOK returns a readiness check that GETs url (any certificate) and wants 200.
func httpOK(url string) func(context.Context) error {
	client := &http.Client{
		Timeout:   5 * time.Second,
		Transport: &http.Transport{TLSClientConfig: &tls.Config{InsecureSkipVerify: true}}, //nolint:gosec // loopback health check of a component with a self-signed certificate
	}
	return func(ctx context.Context) error {
		req, err := http.NewRequestWithContext(ctx, http.MethodGet, url, nil)
		if err != nil {
			return err
		}
		resp, err := client.Do(req)
		if err != nil {
			return err
		}
		resp.Body.Close()
		if resp.StatusCode != http.StatusOK {
			return fmt.Errorf("GET %s: %s", url, resp.Status)
		}
		return nil
	}
}

// waitFor polls check until it succeeds, proc (if any) exits, ctx ends or timeout passes.
func waitFor(ctx context.Context, what string, timeout time.Duration, proc *process, check func(context.Context) error) error {
	deadline := time.Now().Add(timeout)
	for {
		err := check(ctx)
		if err == nil {
			return nil
		}
		if proc != nil {
			if done, exitErr := proc.exited(); done {
				return exitErr
			}
		}
		if time.Now().After(deadline) {
			return fmt.Errorf("%s not ready after %s: %w", what, timeout, err)
		}
		select {
		case <-ctx.Done():
			return fmt.Errorf("%s: %w", what, ctx.Err())
		case <-time.After(200 * time.Millisecond):
		}
	}
}
