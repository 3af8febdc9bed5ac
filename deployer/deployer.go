// Package deployer owns the identity Styrmin's Helm operations act as in a
// namespace, so that Kubernetes itself, not only Styrmin's reading of a
// chart, bounds what a driver's chart can do.
//
// Every Helm operation of a deployment (install, upgrade, rollback,
// uninstall, and each `lookup` while rendering) runs as the namespace's
// deployer: the user `styrmin:deployer:<namespace>`, which Styrmin
// impersonates. The deployer holds Kubernetes' own `admin` role in its
// namespace (a RoleBinding) and nothing else, except what an admin approved
// for the driver version of a deployment there, granted while that
// deployment exists (Grant). It is a user, not a ServiceAccount, on purpose:
// no token can be minted for it and no Role a chart creates in the namespace
// can let anyone impersonate it (users are cluster-scoped).
//
// Styrmin's own Helm records stay out of the deployer's reach: Helm stores
// them with Styrmin's identity, and a ValidatingAdmissionPolicy refuses a
// Helm release record written by anyone else in the namespaces Styrmin
// deploys to.
package deployer

import (
	"context"
	"fmt"
	"sync"

	authenticationv1 "k8s.io/api/authentication/v1"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/discovery"
	"k8s.io/client-go/discovery/cached/memory"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/rest"
	"k8s.io/client-go/restmapper"

	"github.com/styrmin/styrmin/kube"
)

// Labels and values that mark what this package creates, besides kube's
// ManagedByLabel and RoleLabel (kube.RoleDeployer for a deployer's RoleBinding).
const (
	// RoleGrant is the kube.RoleLabel of an approved grant.
	RoleGrant = "grant"
	// DeploymentsLabel marks, with "true", every namespace Styrmin deploys
	// to; the Helm records policy applies there.
	DeploymentsLabel = "styrmin.io/deployments"
)

// userPrefix starts every deployer's user name.
const userPrefix = "styrmin:deployer:"

// namespaceRole is the ClusterRole a deployer holds in its namespace:
// Kubernetes' own role for a namespace's administrators (every namespaced
// object but ResourceQuotas and LimitRanges, no change to the namespace itself).
const namespaceRole = "admin"

// bindingName is the name of a deployer's RoleBinding in its namespace.
const bindingName = "styrmin-deployer"

// User is the user name of namespace's deployer.
func User(namespace string) string { return userPrefix + namespace }

// Impersonation is the impersonation that acts as namespace's deployer.
func Impersonation(namespace string) rest.ImpersonationConfig {
	return rest.ImpersonationConfig{UserName: User(namespace)}
}

// Client manages deployers on one cluster with Styrmin's own identity.
type Client struct {
	config      *rest.Config
	clientset   kubernetes.Interface
	mapper      meta.ResettableRESTMapper
	podSecurity PodSecurity

	// policy is set once the Helm records policy is in place.
	policyMu sync.Mutex
	policy   bool
}

// New returns a Client for the cluster of config, labelling the namespaces
// it creates with podSecurity's levels. It does not contact the cluster.
func New(config *rest.Config, podSecurity PodSecurity) (*Client, error) {
	clientset, err := kubernetes.NewForConfig(config)
	if err != nil {
		return nil, fmt.Errorf("deployer: %w", err)
	}
	dc, err := discovery.NewDiscoveryClientForConfig(config)
	if err != nil {
		return nil, fmt.Errorf("deployer: discovery client: %w", err)
	}
	mapper := restmapper.NewDeferredDiscoveryRESTMapper(memory.NewMemCacheClient(dc))
	return &Client{config: config, clientset: clientset, mapper: mapper, podSecurity: podSecurity.withDefaults()}, nil
}

// actingAs is a client that acts as namespace's deployer, for probes of what
// the API server lets it do.
func (c *Client) actingAs(namespace string) (kubernetes.Interface, error) {
	config := rest.CopyConfig(c.config)
	config.Impersonate = Impersonation(namespace)
	client, err := kubernetes.NewForConfig(config)
	if err != nil {
		return nil, fmt.Errorf("deployer: client of namespace %s's deployer: %w", namespace, err)
	}
	return client, nil
}

// whoAmI is the user name Styrmin's own requests authenticate as.
func (c *Client) whoAmI(ctx context.Context) (string, error) {
	review, err := c.clientset.AuthenticationV1().SelfSubjectReviews().Create(ctx, &authenticationv1.SelfSubjectReview{}, metav1.CreateOptions{})
	if err != nil {
		return "", fmt.Errorf("deployer: who Styrmin is to the cluster: %w", err)
	}
	return review.Status.UserInfo.Username, nil
}

// managed are the labels of an object of role that Styrmin creates.
func managed(role string, extra ...string) map[string]string {
	labels := map[string]string{kube.ManagedByLabel: kube.ManagedBy, kube.RoleLabel: role}
	for i := 0; i+1 < len(extra); i += 2 {
		labels[extra[i]] = extra[i+1]
	}
	return labels
}
