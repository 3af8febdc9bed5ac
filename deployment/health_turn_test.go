package deployment_test

import (
	"context"
	"testing"

	"github.com/stretchr/testify/require"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes/fake"

	"github.com/styrmin/styrmin/app/apptest"
	"github.com/styrmin/styrmin/auth"
	"github.com/styrmin/styrmin/deployment"
	"github.com/styrmin/styrmin/deployment/deploymenttest"
	"github.com/styrmin/styrmin/health"
	"github.com/styrmin/styrmin/kube"
	"github.com/styrmin/styrmin/metrics"
	"github.com/styrmin/styrmin/release/releasetest"
	"github.com/styrmin/styrmin/webhooks"
)

// setPod makes the PostgreSQL pod of crashingPostgres crash-loop, or run
// ready when healthy.
func setPod(t *testing.T, cs *fake.Clientset, healthy bool) {
	t.Helper()
	ctx := context.Background()
	pod, err := cs.CoreV1().Pods("db").Get(ctx, "db-postgresql-0", metav1.GetOptions{})
	require.NoError(t, err)
	st := &pod.Status.ContainerStatuses[0]
	st.Ready = healthy
	st.State = corev1.ContainerState{Waiting: &corev1.ContainerStateWaiting{Reason: "CrashLoopBackOff"}}
	if healthy {
		st.State = corev1.ContainerState{Running: &corev1.ContainerStateRunning{}}
	}
	_, err = cs.CoreV1().Pods("db").UpdateStatus(ctx, pod, metav1.UpdateOptions{})
	require.NoError(t, err)
	sts, err := cs.AppsV1().StatefulSets("db").Get(ctx, "db-postgresql", metav1.GetOptions{})
	require.NoError(t, err)
	sts.Status.ReadyReplicas, sts.Status.AvailableReplicas, sts.Status.CurrentReplicas = 1, 1, 1
	_, err = cs.AppsV1().StatefulSets("db").UpdateStatus(ctx, sts, metav1.UpdateOptions{})
	require.NoError(t, err)
}

// degradedTurns is the styrmin_deployment_degraded_total of deployment in m.
func degradedTurns(t *testing.T, m *metrics.Metrics, name string) float64 {
	t.Helper()
	families, err := m.Gatherer().Gather()
	require.NoError(t, err)
	for _, f := range families {
		if f.GetName() != "styrmin_deployment_degraded_total" {
			continue
		}
		for _, s := range f.GetMetric() {
			if s.GetLabel()[0].GetValue() == name {
				return s.GetCounter().GetValue()
			}
		}
	}
	return 0
}

// TestATurnOfHealthIsDeliveredOnceWhateverTheProcessesThatReadIt: two
// processes (two apps on one database, as two web pods) read every health
// change of a deployment; each turn to Degraded, and back to Healthy, makes
// one delivery to a webhook that subscribes to it, none to one that does
// not, and counts once in the metric of all processes.
func TestATurnOfHealthIsDeliveredOnceWhateverTheProcessesThatReadIt(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	cs := crashingPostgres()
	cluster := &deployment.Cluster{Kube: &kube.Client{Clientset: cs}, Releases: releasetest.New(t).Client}
	m1, m2 := metrics.New(), metrics.New()
	f := deploymenttest.NewFixture(t, apptest.Options{Cluster: cluster, Metrics: m1, NoServer: true})
	other := apptest.New(t, apptest.Options{DatabaseURL: f.DBURL, SecretKey: f.KeyText, Cluster: cluster, Metrics: m2, NoServer: true, NoBundled: true})
	_, err := f.Svc.Queue(ctx, deploymenttest.Postgres("db"))
	require.NoError(t, err)
	admin := webhooks.Caller{Username: "root", Role: auth.Admin}
	secret := "a-webhook-secret-of-32-characters"
	degraded, err := f.Env.Webhooks.Create(ctx, admin, webhooks.NewWebhook{URL: "https://hooks.example/d", Secret: secret,
		Events: []webhooks.Event{webhooks.DeploymentDegraded}, Deployments: []string{"db"}, Kinds: []string{"upgrade"}})
	require.NoError(t, err)
	recovered, err := f.Env.Webhooks.Create(ctx, admin, webhooks.NewWebhook{URL: "https://hooks.example/r", Secret: secret,
		Events: []webhooks.Event{webhooks.DeploymentRecovered}})
	require.NoError(t, err)
	tasks, err := f.Env.Webhooks.Create(ctx, admin, webhooks.NewWebhook{URL: "https://hooks.example/t", Secret: secret,
		Events: []webhooks.Event{webhooks.Started, webhooks.Succeeded, webhooks.Failed, webhooks.Canceled}})
	require.NoError(t, err)
	deliveries := func(w webhooks.Webhook) []webhooks.Delivery {
		_, list, err := f.Env.Webhooks.Get(ctx, admin, w.ID)
		require.NoError(t, err)
		return list
	}
	// Both processes read the deployment's health at each step, as their
	// health watches do, each of its reads a poll of its own.
	readBoth := func(want health.Word) {
		t.Helper()
		for _, svc := range []*deployment.Service{f.Svc, other.Deployments, f.Svc, other.Deployments} {
			require.NoError(t, svc.CheckHealth(ctx))
			h := svc.Healths()
			require.Len(t, h, 1)
			require.Equal(t, want, h[0].Word, "%v", h[0].Reasons)
		}
	}

	readBoth(health.Degraded)
	require.Empty(t, deliveries(degraded), "the first word known of a deployment is no turn")
	setPod(t, cs, true)
	readBoth(health.Healthy)
	require.Empty(t, deliveries(recovered), "nor is Healthy a recovery without a Degraded turn before")

	setPod(t, cs, false)
	readBoth(health.Degraded)
	list := deliveries(degraded)
	require.Len(t, list, 1, "one delivery per turn, whatever the processes and polls that read it")
	require.Equal(t, webhooks.DeploymentDegraded, list[0].Event)
	require.Equal(t, "db", list[0].Deployment)
	require.Nil(t, list[0].TaskID)
	require.Equal(t, 1.0, degradedTurns(t, m1, "db")+degradedTurns(t, m2, "db"), "the metric counts the turn once across processes")

	setPod(t, cs, true)
	readBoth(health.Healthy)
	require.Len(t, deliveries(recovered), 1)
	require.Len(t, deliveries(degraded), 1, "a recovery is not a degraded event")
	require.Empty(t, deliveries(tasks), "a webhook of task events hears nothing of health")

	setPod(t, cs, false)
	readBoth(health.Degraded)
	require.Len(t, deliveries(degraded), 2, "a new episode is a new turn")
	require.Equal(t, 2.0, degradedTurns(t, m1, "db")+degradedTurns(t, m2, "db"))
}
