package api

import (
	oapi "github.com/styrmin/styrmin/api"
	"github.com/styrmin/styrmin/deployment"
	"github.com/styrmin/styrmin/health"
	"github.com/styrmin/styrmin/kube"
)

// apiHealthOf is a deployment's health as the API shows it; nil for none.
func apiHealthOf(h *deployment.Health) *oapi.Health {
	if h == nil {
		return nil
	}
	reasons := h.Reasons
	if reasons == nil {
		reasons = []string{}
	}
	return &oapi.Health{Word: oapi.HealthWord(h.Word), Reasons: reasons, CheckedAt: h.At}
}

// apiWorkloadsOf are a component's workloads as the API shows them.
func apiWorkloadsOf(ws []kube.Workload) *[]oapi.Workload {
	out := make([]oapi.Workload, 0, len(ws))
	for _, w := range ws {
		out = append(out, oapi.Workload{Kind: oapi.WorkloadKind(w.Kind), Name: w.Name, Desired: int(w.Replicas), Ready: int(w.ReadyReplicas), Available: int(w.AvailableReplicas)})
	}
	return &out
}

// addLiveHealth sets the pods, claims and events of h on out, when the cluster was read.
func addLiveHealth(out *oapi.GetDeployment200JSONResponse, h *deployment.Health) {
	out.Health = apiHealthOf(h)
	if h == nil || h.Word == health.Unknown {
		return
	}
	pods := make([]oapi.Pod, 0, len(h.Pods))
	for _, p := range h.Pods {
		pod := oapi.Pod{Name: p.Name, Workload: p.Workload, Phase: p.Phase, ReadyContainers: p.Ready, Containers: p.Containers,
			Restarts: int(p.Restarts), CreatedAt: p.Created, Node: nonEmpty(p.Node), Waiting: nonEmpty(p.Waiting),
			LastTermination: nonEmpty(p.LastTermination), Message: nonEmpty(p.Message)}
		pods = append(pods, pod)
	}
	pvcs := make([]oapi.PersistentVolumeClaim, 0, len(h.PVCs))
	for _, c := range h.PVCs {
		pvcs = append(pvcs, oapi.PersistentVolumeClaim{Name: c.Name, Phase: c.Phase, Size: nonEmpty(c.Size), StorageClass: nonEmpty(c.StorageClass)})
	}
	events := make([]oapi.ClusterEvent, 0, len(h.Events))
	for _, e := range h.Events {
		events = append(events, oapi.ClusterEvent{Type: e.Type, Reason: e.Reason, Object: e.Object, Message: e.Message, Count: int(e.Count), LastSeen: e.Last})
	}
	out.Pods, out.Pvcs, out.Events, out.EventsLeftOut = &pods, &pvcs, &events, &h.EventsLeftOut
}
