package api

import (
	"testing"

	"github.com/stretchr/testify/require"

	oapi "github.com/styrmin/styrmin/api"
	"github.com/styrmin/styrmin/deployment"
	"github.com/styrmin/styrmin/kube"
)

// TestAPIComponentsTellReadinessWhereTheClusterAnswered: a component the
// cluster reported has its ready/desired pods summed over its workloads, and
// each workload's desired, ready and available replicas; one
// it did not report has no readiness (deployment.View merges which
// components there are: TestAViewsComponentsAreDeclaredRememberedAndReported).
func TestAPIComponentsTellReadinessWhereTheClusterAnswered(t *testing.T) {
	t.Parallel()
	ready := func(s string) *string { return &s }
	components := []deployment.ComponentView{
		{Name: "web", Reported: true, Workloads: []kube.Workload{{Kind: kube.KindDeployment, Name: "web", Replicas: 2, ReadyReplicas: 1},
			{Kind: kube.KindStatefulSet, Name: "cache", Replicas: 1, ReadyReplicas: 1, AvailableReplicas: 1}}},
		{Name: "db", Stopped: true, Reported: true, Workloads: []kube.Workload{{Kind: kube.KindStatefulSet, Name: "db", Replicas: 0}}},
		{Name: "gone", Stopped: true},
	}
	require.Equal(t, map[string]oapi.ComponentState{
		"web":  {Ready: ready("2/3"), Workloads: &[]oapi.Workload{{Kind: "Deployment", Name: "web", Desired: 2, Ready: 1}, {Kind: "StatefulSet", Name: "cache", Desired: 1, Ready: 1, Available: 1}}},
		"db":   {Stopped: true, Ready: ready("0/0"), Workloads: &[]oapi.Workload{{Kind: "StatefulSet", Name: "db"}}},
		"gone": {Stopped: true},
	}, apiComponentsOf(components))
}
