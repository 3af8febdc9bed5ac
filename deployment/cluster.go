package deployment

import (
	"github.com/styrmin/styrmin"
	"github.com/styrmin/styrmin/kube"
	"github.com/styrmin/styrmin/release"
)

// Cluster is the Kubernetes cluster deployments go to: Helm for releases,
// client-go for namespaces and workloads. Drivers' charts come with their
// bundles from the catalogue (catalog.Catalog.Bundle), never from the network.
type Cluster struct {
	Releases *release.Client
	Kube     *kube.Client
}

// errNoCluster is what tasks and pages say when no cluster is configured.
var errNoCluster = styrmin.Errorf(styrmin.EUNAVAILABLE, "No Kubernetes cluster is configured: start Styrmin with KUBECONFIG or --kubeconfig (`make run` starts a local one).")

// needCluster returns the cluster, or errNoCluster.
func (s *Service) needCluster() (*Cluster, error) {
	if s.cluster == nil {
		return nil, errNoCluster
	}
	return s.cluster, nil
}

// isNotFound reports whether err is an ENOTFOUND error.
func isNotFound(err error) bool { return styrmin.ErrorCode(err) == styrmin.ENOTFOUND }
