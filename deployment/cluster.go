package deployment

import (
	"context"
	"log/slog"
	"time"

	apierrors "k8s.io/apimachinery/pkg/api/errors"

	"github.com/styrmin/styrmin"
	"github.com/styrmin/styrmin/deployer"
	"github.com/styrmin/styrmin/kube"
	"github.com/styrmin/styrmin/permissions"
	"github.com/styrmin/styrmin/release"
)

// Cluster is the Kubernetes cluster deployments go to: Helm for releases,
// client-go for namespaces and workloads. Drivers' charts come with their
// bundles from the catalogue (catalog.Catalog.Bundle), never from the network.
type Cluster struct {
	Releases *release.Client
	Kube     *kube.Client
	// Deployers are the identities Helm acts as in each namespace (see
	// NewCluster); nil only for Helm's in-memory storage in tests, where
	// nothing reaches a cluster.
	Deployers *deployer.Client
	// Watches read releases' state from one set of informers per namespace
	// (ReleaseState); nil reads it with list calls.
	Watches *kube.Watches
	// Objects reads a release's objects of any kind (Drift); nil in tests
	// that build a Cluster without one, where drift is not read.
	Objects *kube.ObjectReader
}

// WatchIdle is how long a namespace's informers live with no read of one of
// its releases (WatchHealth reads every deployment's every HealthEvery).
const WatchIdle = 10 * time.Minute

// ReleaseState reads what the cluster runs of release name in namespace.
func (c *Cluster) ReleaseState(ctx context.Context, namespace, name string) (*kube.ReleaseState, error) {
	if c.Watches != nil {
		return c.Watches.ReleaseState(ctx, namespace, name)
	}
	return c.Kube.ReleaseState(ctx, namespace, name)
}

// ClusterOptions says how deployments act on a cluster.
type ClusterOptions struct {
	// PodSecurity are the Pod Security levels of the namespaces Styrmin creates.
	PodSecurity deployer.PodSecurity
	// DeployersNamespace holds the deployers' ServiceAccounts and nothing
	// else (deployer.DefaultNamespace when "").
	DeployersNamespace string
	// MaxHistory bounds the revisions Helm keeps per release
	// (release.DefaultMaxHistory when zero).
	MaxHistory int
	// ReviewOnly makes Helm read its records and dry-run as each namespace's
	// reviewer (deployer.Reviewer), which changes nothing: for a process that
	// works no task (`serve --no-executor`), whose own identity then needs no
	// right to Secrets and may impersonate no deployer (the chart's web pods).
	ReviewOnly bool
}

// NewCluster returns the cluster of client, whose Helm operations each act as
// their namespace's deployer, so that Kubernetes bounds what a chart may do.
// Unless ReviewOnly, everything else it does inside a namespace (action pods
// and Jobs, their logs and Secrets, scaling, reading workloads) acts as that
// deployer too (kube.Client.ActingAs): Styrmin's own identity keeps only
// cluster-wide rights (namespaces, nodes, the deployers' bindings).
func NewCluster(client *kube.Client, opts ClusterOptions, log *slog.Logger) (*Cluster, error) {
	deployers, err := deployer.New(client.Config, deployer.Options{PodSecurity: opts.PodSecurity, Namespace: opts.DeployersNamespace})
	if err != nil {
		return nil, err
	}
	actAs, recordsAs := deployers.Impersonation, deployers.RecordsImpersonation
	if opts.ReviewOnly {
		actAs, recordsAs = deployer.ReviewerImpersonation, deployer.ReviewerImpersonation
	} else if client, err = client.ActingAs(deployers.Impersonation); err != nil {
		return nil, err
	}
	releases, err := release.New(client.Config, release.Options{ActAs: actAs, RecordsAs: recordsAs, MaxHistory: opts.MaxHistory}, log)
	if err != nil {
		return nil, err
	}
	objects, err := kube.NewObjectReader(client.Config)
	if err != nil {
		return nil, err
	}
	return &Cluster{Releases: releases, Kube: client, Deployers: deployers, Watches: kube.NewWatches(client.Clientset, WatchIdle), Objects: objects}, nil
}

// NamespaceLabels are the labels of a namespace Styrmin creates.
func (c *Cluster) NamespaceLabels() map[string]string {
	if c.Deployers == nil {
		return nil
	}
	return c.Deployers.NamespaceLabels()
}

// errNoCluster is what tasks and pages say when no cluster is configured.
var errNoCluster = styrmin.Errorf(styrmin.EUNAVAILABLE, "No Kubernetes cluster is configured: start Styrmin with KUBECONFIG or --kubeconfig (`make run` starts a local one).")

// Cluster returns the configured cluster, nil when none is.
func (s *Service) Cluster() *Cluster { return s.cluster }

// NeedCluster returns the cluster, or errNoCluster.
func (s *Service) NeedCluster() (*Cluster, error) {
	if s.cluster == nil {
		return nil, errNoCluster
	}
	return s.cluster, nil
}

// isNotFound reports whether err is an ENOTFOUND error.
func isNotFound(err error) bool { return styrmin.ErrorCode(err) == styrmin.ENOTFOUND }

// PrepareDeployer makes namespace's deployer ready for a Helm operation of
// release name with the given versions of driver: its identity exists, and it
// holds what an admin approved for those versions together (an upgrade
// needs the old version's grants as well, to remove what it alone created).
// With no versions it only makes the identity exist.
func (s *Service) PrepareDeployer(ctx context.Context, cluster *Cluster, namespace, name, driver string, versions ...string) error {
	if cluster.Deployers == nil {
		return nil
	}
	if err := cluster.Deployers.Ensure(ctx, namespace); err != nil {
		return err
	}
	if len(versions) == 0 {
		return nil
	}
	var approved permissions.Set
	for _, version := range versions {
		p, err := s.catalog.Permissions(ctx, driver, version)
		if err != nil {
			return err
		}
		approved = permissions.Union(approved, p.Approved())
	}
	return cluster.Deployers.Grant(ctx, namespace, name, approved)
}

// EnsureIdentities gives the namespace of every live deployment its
// deployer and reviewer, as each of its tasks does: a deployment made before
// Styrmin had reviewers is readable by the web pods once a worker has
// started, not only after its next task. A namespace that is not there yet
// (an install still queued) is left to its install; any other failure is
// logged, and the deployment's next task tries again.
func (s *Service) EnsureIdentities(ctx context.Context) {
	if s.cluster == nil || s.cluster.Deployers == nil {
		return
	}
	namespaces, err := s.q.ListLiveNamespaces(ctx)
	if err != nil {
		s.log.Warn("could not list the deployments' namespaces to give them their identities", "err", err)
		return
	}
	for _, namespace := range namespaces {
		if err := s.cluster.Deployers.Ensure(ctx, namespace); err != nil && !apierrors.IsNotFound(err) {
			s.log.Warn("could not give a namespace its deployer and reviewer", "namespace", namespace, "err", err)
		}
	}
}

// RevokeDeployer takes back what release name's deployer was granted, once
// the release is uninstalled.
func (c *Cluster) RevokeDeployer(ctx context.Context, namespace, name string) error {
	if c.Deployers == nil {
		return nil
	}
	return c.Deployers.Revoke(ctx, namespace, name)
}
