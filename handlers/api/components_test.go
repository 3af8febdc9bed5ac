package api

import (
	"testing"

	"github.com/stretchr/testify/require"

	oapi "github.com/styrmin/styrmin/api"
	"github.com/styrmin/styrmin/deployment"
	"github.com/styrmin/styrmin/drivers"
	"github.com/styrmin/styrmin/kube"
)

func TestAPIComponentsTellReadinessWhereTheClusterAnswered(t *testing.T) {
	t.Parallel()
	d := &deployment.Deployment{Components: map[string]deployment.ComponentState{"db": {Stopped: true}, "gone": {Stopped: true}}}
	drv := &drivers.Driver{Spec: drivers.Spec{Components: []drivers.Component{{Name: "web"}, {Name: "db"}}}}
	ready := func(s string) *string { return &s }

	require.Equal(t, map[string]oapi.ComponentState{
		"web": {}, "db": {Stopped: true}, "gone": {Stopped: true},
	}, apiComponentsOf(d, drv, nil), "no cluster: what the driver declares and Styrmin remembers")

	live := []deployment.LiveComponent{
		{Name: "web", Workloads: []kube.Workload{{Replicas: 2, ReadyReplicas: 1}, {Replicas: 1, ReadyReplicas: 1}}},
		{Name: "db", Stopped: true, Workloads: []kube.Workload{{Replicas: 0}}},
	}
	require.Equal(t, map[string]oapi.ComponentState{
		"web": {Ready: ready("2/3")}, "db": {Stopped: true, Ready: ready("0/0")}, "gone": {Stopped: true},
	}, apiComponentsOf(d, drv, live))
}
