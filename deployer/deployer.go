// Package deployer owns the identity Styrmin's Helm operations act as in a
// namespace, so that Kubernetes itself, not only Styrmin's reading of a
// chart, bounds what a driver's chart can do.
//
// Every Helm operation of a deployment (install, upgrade, rollback,
// uninstall, and each `lookup` while rendering) runs as the namespace's
// deployer: the ServiceAccount `deployer-<namespace>` of a namespace of
// Styrmin's own that holds nothing else (Options.Namespace), which Styrmin
// impersonates. The deployer holds Kubernetes' own `admin` role in its
// namespace (a RoleBinding) and nothing else, except what an admin approved
// for the driver version of a deployment there, granted while that
// deployment exists (Grant). It is a ServiceAccount of that namespace, not a
// user, so that RBAC can name the deployers Styrmin may impersonate (a Role
// there: users can be named only one by one), while no chart holds any right
// in that namespace to mint a token for it or impersonate it.
//
// Styrmin's own Helm records stay out of the deployer's reach: Helm stores
// them as the deployer in the group RecordsGroup (RecordsImpersonation),
// which only Styrmin can act as, and a ValidatingAdmissionPolicy refuses a
// Helm release record written by anyone else in the namespaces Styrmin
// deploys to.
package deployer

import (
	"cmp"
	"context"
	"fmt"
	"strings"
	"sync"

	authenticationv1 "k8s.io/api/authentication/v1"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/validation"
	"k8s.io/client-go/discovery"
	"k8s.io/client-go/discovery/cached/memory"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/rest"
	"k8s.io/client-go/restmapper"

	"github.com/styrmin/styrmin"
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

// DefaultNamespace is the namespace of the deployers' ServiceAccounts when
// Options name none.
const DefaultNamespace = "styrmin-deployers"

// accountPrefix starts the name of every deployer's ServiceAccount.
const accountPrefix = "deployer-"

// namespaceRole is the ClusterRole a deployer holds in its namespace:
// Kubernetes' own role for a namespace's administrators (every namespaced
// object but ResourceQuotas and LimitRanges, no change to the namespace itself).
const namespaceRole = "admin"

// bindingName is the name of a deployer's RoleBinding in its namespace.
const bindingName = "styrmin-deployer"

// Account is the name of namespace's deployer's ServiceAccount (in the
// deployers' namespace, Client.Namespace).
func Account(namespace string) string { return accountPrefix + namespace }

// serviceAccountUser is the user name Kubernetes gives ServiceAccount name of
// namespace.
func serviceAccountUser(namespace, name string) string {
	return "system:serviceaccount:" + namespace + ":" + name
}

// User is the user name of namespace's deployer.
func (c *Client) User(namespace string) string {
	return serviceAccountUser(c.namespace, Account(namespace))
}

// Impersonation is the impersonation that acts as namespace's deployer.
func (c *Client) Impersonation(namespace string) rest.ImpersonationConfig {
	return rest.ImpersonationConfig{UserName: c.User(namespace)}
}

// RecordsGroup is the group Styrmin adds to a deployer when it reads and
// writes Helm's records as it: the records policy lets that group (and the
// users Styrmins authenticate as) write them. No token carries it, and
// impersonating it takes a right only Styrmin's worker is given.
const RecordsGroup = "styrmin:helm-records"

// RecordsImpersonation is the impersonation that reads and writes Helm's
// records in namespace: its deployer, in RecordsGroup. Impersonated with a
// group, the ServiceAccount is in that group (and system:authenticated) only,
// not in the system:serviceaccounts groups (k8s.io/apiserver's impersonation
// filter adds those only when no group is asked for): its RBAC, bound to
// the ServiceAccount by name, is the same.
func (c *Client) RecordsImpersonation(namespace string) rest.ImpersonationConfig {
	return rest.ImpersonationConfig{UserName: c.User(namespace), Groups: []string{RecordsGroup}}
}

// Options say how a Client makes deployers.
type Options struct {
	// PodSecurity are the levels of the namespaces Styrmin creates.
	PodSecurity PodSecurity
	// Namespace holds the deployers' ServiceAccounts and nothing else
	// (DefaultNamespace when ""); Styrmin creates it when it is missing and
	// never deploys into it.
	Namespace string
}

// Client manages deployers on one cluster with Styrmin's own identity.
type Client struct {
	config      *rest.Config
	clientset   kubernetes.Interface
	mapper      meta.ResettableRESTMapper
	podSecurity PodSecurity
	namespace   string

	// policy is set once the Helm records policy is in place, and lister
	// when ListerRole is.
	policyMu sync.Mutex
	policy   bool
	lister   bool
}

// New returns a Client for the cluster of config, with opts. It does not
// contact the cluster.
func New(config *rest.Config, opts Options) (*Client, error) {
	if err := opts.PodSecurity.Validate(); err != nil {
		return nil, err
	}
	namespace := cmp.Or(opts.Namespace, DefaultNamespace)
	if errs := validation.IsDNS1123Label(namespace); len(errs) > 0 {
		return nil, styrmin.Errorf(styrmin.EINVALID, "The deployers' namespace %q is not a namespace name: %s.", namespace, strings.Join(errs, "; "))
	}
	clientset, err := kubernetes.NewForConfig(config)
	if err != nil {
		return nil, fmt.Errorf("deployer: %w", err)
	}
	dc, err := discovery.NewDiscoveryClientForConfig(config)
	if err != nil {
		return nil, fmt.Errorf("deployer: discovery client: %w", err)
	}
	mapper := restmapper.NewDeferredDiscoveryRESTMapper(memory.NewMemCacheClient(dc))
	return &Client{config: config, clientset: clientset, mapper: mapper, podSecurity: opts.PodSecurity.withDefaults(), namespace: namespace}, nil
}

// Namespace is the namespace that holds the deployers' ServiceAccounts.
func (c *Client) Namespace() string { return c.namespace }

// actingAs is a client that acts as as, for probes of what the API server
// lets an identity do.
func (c *Client) actingAs(as rest.ImpersonationConfig) (kubernetes.Interface, error) {
	config := rest.CopyConfig(c.config)
	config.Impersonate = as
	client, err := kubernetes.NewForConfig(config)
	if err != nil {
		return nil, fmt.Errorf("deployer: client acting as %s: %w", as.UserName, err)
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
