package api

import (
	"testing"

	"github.com/stretchr/testify/require"

	oapi "github.com/styrmin/styrmin/api"
	"github.com/styrmin/styrmin/deployment"
	"github.com/styrmin/styrmin/kube"
)

// TestAPIComponentsTellReadinessWhereTheClusterAnswered: a component the
// cluster reported has its ready/desired pods summed over its workloads; one
// it did not report has no readiness (deployment.View merges which
// components there are: TestAViewsComponentsAreDeclaredRememberedAndReported).
func TestAPIComponentsTellReadinessWhereTheClusterAnswered(t *testing.T) {
	t.Parallel()
	ready := func(s string) *string { return &s }
	components := []deployment.ComponentView{
		{Name: "web", Reported: true, Workloads: []kube.Workload{{Replicas: 2, ReadyReplicas: 1}, {Replicas: 1, ReadyReplicas: 1}}},
		{Name: "db", Stopped: true, Reported: true, Workloads: []kube.Workload{{Replicas: 0}}},
		{Name: "gone", Stopped: true},
	}
	require.Equal(t, map[string]oapi.ComponentState{
		"web": {Ready: ready("2/3")}, "db": {Stopped: true, Ready: ready("0/0")}, "gone": {Stopped: true},
	}, apiComponentsOf(components))
}
