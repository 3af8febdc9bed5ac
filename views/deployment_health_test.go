package views

import (
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

func TestHealthSectionSaysWhyAndPollsItself(t *testing.T) {
	t.Parallel()
	at := time.Now().Add(-time.Minute)
	doc := renderDoc(t, DeploymentHealth(HealthProps{
		Name: "shop", Word: HealthDegraded, Reasons: []string{"pod shop-web-1: CrashLoopBackOff, restarted 4 times, last ended Error"}, At: at,
		Workloads: []HealthWorkloadRow{{Component: "web", Kind: "Deployment", Name: "shop-web", Desired: 2, Ready: 1, Available: 1}},
		Pods: []PodRow{{Name: "shop-web-1", Workload: "Deployment/shop-web", Phase: "Running", Containers: 1, Restarts: 4, Created: at, Node: "node-1",
			Waiting: "CrashLoopBackOff", LastTermination: "Error", Message: "back-off 40s"}},
		PVCs:          []PVCRow{{Name: "data", Phase: "Bound", Size: "1Gi", StorageClass: "local"}},
		Events:        []EventRow{{Type: "Warning", Reason: "BackOff", Object: "Pod/shop-web-1", Message: "Back-off restarting failed container", Count: 7, Last: at}},
		EventsLeftOut: 3,
	}))
	section := doc.Find(`[data-testid="deployment-health"]`)
	require.Equal(t, HealthDegraded, section.AttrOr("data-health", ""))
	require.Equal(t, "/deployments/shop/health", section.AttrOr("hx-get", ""), "it asks for itself again")
	require.Equal(t, "every 5s", section.AttrOr("hx-trigger", ""))
	require.Equal(t, "badge-danger", strings.Fields(doc.Find(`[data-testid="health-word"]`).AttrOr("class", ""))[1])
	require.Contains(t, doc.Find(`[data-testid="health-reason"]`).Text(), "CrashLoopBackOff")
	require.Equal(t, "1", doc.Find(`[data-testid="health-workload"][data-name="shop-web"] td`).Eq(4).Text(), "available replicas")
	reason := strings.Join(strings.Fields(doc.Find(`[data-testid="pod"][data-name="shop-web-1"] [data-testid="pod-reason"]`).Text()), " ")
	require.Equal(t, "CrashLoopBackOff last ended: Error back-off 40s", reason)
	require.Equal(t, "4", doc.Find(`[data-testid="pod-restarts"]`).Text())
	require.Contains(t, doc.Find(`[data-testid="pvc"][data-name="data"]`).Text(), "Bound")
	require.Equal(t, "Warning", doc.Find(`[data-testid="event"]`).AttrOr("data-type", ""))
	require.Contains(t, doc.Find(`[data-testid="deployment-health"]`).Text(), "3 older events are not shown.")
}

func TestHealthSectionOfAHealthyDeploymentHasNoReasons(t *testing.T) {
	t.Parallel()
	doc := renderDoc(t, DeploymentHealth(HealthProps{Name: "shop", Word: HealthHealthy, At: time.Now()}))
	require.Equal(t, HealthHealthy, doc.Find(`[data-testid="health-word"]`).AttrOr("data-health", ""))
	require.Zero(t, doc.Find(`[data-testid="health-reasons"], [data-testid="pods"], [data-testid="events"]`).Length())
}
