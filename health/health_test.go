package health_test

import (
	"fmt"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/styrmin/styrmin/health"
	"github.com/styrmin/styrmin/kube"
)

// web is a Deployment of 2 replicas with ready of them ready and available.
func web(ready int32) kube.Workload {
	w := kube.Workload{Kind: kube.KindDeployment, Name: "shop-web", Replicas: 2, ReadyReplicas: ready, AvailableReplicas: ready}
	if ready < 2 {
		w.Waiting = fmt.Sprintf("Deployment shop-web: %d of 2 replicas ready", ready)
	}
	return w
}

// running is a ready, running pod of shop-web.
func running(name string) kube.Pod {
	return kube.Pod{Name: name, Workload: "Deployment/shop-web", Phase: "Running", Ready: 1, Containers: 1}
}

func TestAssess(t *testing.T) {
	t.Parallel()
	crashing := kube.Pod{Name: "shop-web-2", Workload: "Deployment/shop-web", Phase: "Running", Containers: 1, Restarts: 4,
		Waiting: "CrashLoopBackOff", LastTermination: "Error"}
	oom := kube.Pod{Name: "shop-web-2", Workload: "Deployment/shop-web", Phase: "Running", Containers: 1, Restarts: 1, LastTermination: "OOMKilled"}
	for _, tc := range []struct {
		name    string
		in      health.Input
		want    health.Word
		reasons []string
	}{
		{name: "every replica ready", want: health.Healthy,
			in: health.Input{Components: []health.Component{{Name: "web", Workloads: []kube.Workload{web(2)}}}, Pods: []kube.Pod{running("shop-web-1"), running("shop-web-2")},
				PVCs: []kube.PVC{{Name: "data", Phase: "Bound"}}}},
		{name: "a pod restarted once but is ready again is healthy", want: health.Healthy,
			in: health.Input{Components: []health.Component{{Name: "web", Workloads: []kube.Workload{web(2)}}},
				Pods: []kube.Pod{{Name: "shop-web-1", Workload: "Deployment/shop-web", Phase: "Running", Ready: 1, Containers: 1, Restarts: 1, LastTermination: "Error"}}}},
		{name: "a rollout under way", want: health.Progressing, reasons: []string{"Deployment shop-web: 1 of 2 replicas ready", "pod shop-web-2: pending (ContainerCreating)"},
			in: health.Input{Components: []health.Component{{Name: "web", Workloads: []kube.Workload{web(1)}}},
				Pods: []kube.Pod{running("shop-web-1"), {Name: "shop-web-2", Workload: "Deployment/shop-web", Phase: "Pending", Containers: 1, Waiting: "ContainerCreating"}}}},
		{name: "ready but not yet available", want: health.Progressing, reasons: []string{"Deployment shop-web: 0 of 2 replicas available"},
			in: health.Input{Components: []health.Component{{Name: "web", Workloads: []kube.Workload{{Kind: kube.KindDeployment, Name: "shop-web", Replicas: 2, ReadyReplicas: 2}}}}}},
		{name: "a crash-looping pod degrades it, whatever else progresses", want: health.Degraded,
			reasons: []string{"pod shop-web-2: CrashLoopBackOff, restarted 4 times, last ended Error"},
			in:      health.Input{Components: []health.Component{{Name: "web", Workloads: []kube.Workload{web(1)}}}, Pods: []kube.Pod{running("shop-web-1"), crashing}}},
		{name: "an image that cannot be pulled", want: health.Degraded, reasons: []string{"pod shop-web-1: ImagePullBackOff"},
			in: health.Input{Components: []health.Component{{Name: "web", Workloads: []kube.Workload{web(0)}}},
				Pods: []kube.Pod{{Name: "shop-web-1", Workload: "Deployment/shop-web", Phase: "Pending", Containers: 1, Waiting: "ImagePullBackOff"}}}},
		{name: "a configuration error", want: health.Degraded, reasons: []string{"pod shop-web-1: CreateContainerConfigError"},
			in: health.Input{Components: []health.Component{{Name: "web", Workloads: []kube.Workload{web(0)}}},
				Pods: []kube.Pod{{Name: "shop-web-1", Workload: "Deployment/shop-web", Phase: "Pending", Containers: 1, Waiting: "CreateContainerConfigError"}}}},
		{name: "killed for its memory and not ready again", want: health.Degraded, reasons: []string{"pod shop-web-2: restarted 1 times, last ended OOMKilled"},
			in: health.Input{Components: []health.Component{{Name: "web", Workloads: []kube.Workload{web(1)}}}, Pods: []kube.Pod{running("shop-web-1"), oom}}},
		{name: "a failed pod", want: health.Degraded, reasons: []string{"pod shop-web-1: failed (Evicted)"},
			in: health.Input{Components: []health.Component{{Name: "web", Workloads: []kube.Workload{web(2)}}},
				Pods: []kube.Pod{{Name: "shop-web-1", Workload: "Deployment/shop-web", Phase: "Failed", LastTermination: "Evicted"}}}},
		{name: "a rollout past its deadline", want: health.Degraded, reasons: []string{`Deployment shop-web: ReplicaSet "shop-web-1" has timed out progressing.`},
			in: health.Input{Components: []health.Component{{Name: "web", Workloads: []kube.Workload{{Kind: kube.KindDeployment, Name: "shop-web", Replicas: 2,
				Failed: `ReplicaSet "shop-web-1" has timed out progressing.`}}}}}},
		{name: "a lost volume", want: health.Degraded, reasons: []string{"claim data: its volume is lost"},
			in: health.Input{Components: []health.Component{{Name: "web", Workloads: []kube.Workload{web(2)}}}, PVCs: []kube.PVC{{Name: "data", Phase: "Lost"}}}},
		{name: "a claim waiting for its volume", want: health.Progressing, reasons: []string{"claim data: waiting for a volume"},
			in: health.Input{Components: []health.Component{{Name: "web", Workloads: []kube.Workload{web(2)}}}, PVCs: []kube.PVC{{Name: "data", Phase: "Pending"}}}},
		{name: "the release is gone", want: health.Missing, reasons: []string{"Helm has no release of this deployment"},
			in: health.Input{ReleaseMissing: true, Components: []health.Component{{Name: "web"}}}},
		{name: "a running component without its workload", want: health.Missing, reasons: []string{"component web: no Deployment or StatefulSet of the release matches it"},
			in: health.Input{Components: []health.Component{{Name: "web"}}}},
		{name: "a workload a task has not created yet", want: health.Progressing, reasons: []string{"component web: no Deployment or StatefulSet of the release matches it"},
			in: health.Input{Busy: true, Components: []health.Component{{Name: "web"}}}},
		{name: "a crash is worse than a missing workload", want: health.Degraded, reasons: []string{"pod shop-web-2: CrashLoopBackOff, restarted 4 times, last ended Error"},
			in: health.Input{Components: []health.Component{{Name: "db"}, {Name: "web", Workloads: []kube.Workload{web(1)}}}, Pods: []kube.Pod{crashing}}},
		{name: "every component stopped and its pods gone", want: health.Stopped,
			in: health.Input{Components: []health.Component{{Name: "web", Stopped: true, Workloads: []kube.Workload{{Kind: kube.KindDeployment, Name: "shop-web"}}}}}},
		{name: "stopped but a pod still ends", want: health.Progressing, reasons: []string{"pod shop-web-1: still stopping"},
			in: health.Input{Components: []health.Component{{Name: "web", Stopped: true, Workloads: []kube.Workload{{Kind: kube.KindDeployment, Name: "shop-web"}}}},
				Pods: []kube.Pod{running("shop-web-1")}}},
		{name: "a stopped component beside a healthy one is healthy", want: health.Healthy,
			in: health.Input{Components: []health.Component{{Name: "web", Workloads: []kube.Workload{web(2)}}, {Name: "worker", Stopped: true}},
				Pods: []kube.Pod{running("shop-web-1"), running("shop-web-2")}}},
		{name: "a crash in a stopped component's leftover pod is not the running ones'", want: health.Healthy,
			in: health.Input{Components: []health.Component{{Name: "web", Workloads: []kube.Workload{web(2)}}, {Name: "worker", Stopped: true}},
				Pods: []kube.Pod{running("shop-web-1"), {Name: "worker-1", Workload: "Deployment/worker", Waiting: "CrashLoopBackOff"}}}},
		{name: "a driver without components", want: health.Healthy, in: health.Input{}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			got := health.Assess(tc.in)
			require.Equal(t, tc.want, got.Word)
			require.Equal(t, tc.reasons, got.Reasons)
		})
	}
}
