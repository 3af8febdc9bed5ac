package deployment_test

import (
	"context"
	"fmt"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/client-go/kubernetes/fake"
	k8stesting "k8s.io/client-go/testing"

	"github.com/styrmin/styrmin/deployment"
	"github.com/styrmin/styrmin/deployment/deploymenttest"
	"github.com/styrmin/styrmin/kube"
	"github.com/styrmin/styrmin/release/releasetest"
)

// healthDeployments is how many deployments BenchmarkHealthPolls reads.
const healthDeployments = 50

// BenchmarkHealthPolls measures the Health section's poll
// (deployment.Service.Health, what GET /deployments/{name}/health reads)
// with 50 Hello Web deployments, each in its namespace with two pods and
// an event, polled by 1 and by 20 concurrent viewers that go round every
// deployment, on a fake API server that counts its list calls. An
// operation is one poll by each viewer. With the shared informers
// (kube.Watches, as styrmin serve runs) the list calls are the first lists
// of each namespace's informers, however many viewers and polls; with list
// reads (no Watches) each read of a deployment's state lists six kinds,
// once per deployment per deployment.HealthFresh. Run it for longer than
// HealthFresh to see that:
//
//	go test -run '^$' -bench HealthPolls -benchtime 15s ./deployment/
func BenchmarkHealthPolls(b *testing.B) {
	for _, watched := range []bool{true, false} {
		for _, viewers := range []int{1, 20} {
			b.Run(fmt.Sprintf("watches=%t/viewers=%d", watched, viewers), func(b *testing.B) {
				benchmarkHealthPolls(b, watched, viewers)
			})
		}
	}
}

func benchmarkHealthPolls(b *testing.B, watched bool, viewers int) {
	ctx := context.Background()
	var objects []runtime.Object
	for i := range healthDeployments {
		ns := healthName(i)
		for p := range 2 {
			objects = append(objects, &corev1.Pod{
				ObjectMeta: metav1.ObjectMeta{Name: fmt.Sprintf("%s-web-%d", ns, p), Namespace: ns, Labels: map[string]string{"app.kubernetes.io/instance": ns}},
				Status:     corev1.PodStatus{Phase: corev1.PodRunning},
			})
		}
		objects = append(objects, &corev1.Event{ObjectMeta: metav1.ObjectMeta{Name: ns + "-started", Namespace: ns}, Type: "Normal", Reason: "Started",
			InvolvedObject: corev1.ObjectReference{Kind: "Pod", Name: ns + "-web-0", Namespace: ns}})
	}
	clientset := fake.NewClientset(objects...)
	var lists atomic.Int64
	clientset.PrependReactor("list", "*", func(k8stesting.Action) (bool, runtime.Object, error) {
		lists.Add(1)
		return false, nil, nil
	})
	cluster := &deployment.Cluster{Kube: &kube.Client{Clientset: clientset}, Releases: releasetest.New(b).Client}
	if watched {
		cluster.Watches = kube.NewWatches(clientset, time.Hour)
		b.Cleanup(cluster.Watches.Stop)
	}
	f := deploymenttest.Setup(b, cluster)
	for i := range healthDeployments {
		_, err := f.Svc.Queue(ctx, deploymenttest.HelloWeb(healthName(i)))
		require.NoError(b, err)
	}

	b.ResetTimer()
	start := time.Now()
	var wg sync.WaitGroup
	for v := range viewers {
		wg.Go(func() {
			for i := range b.N {
				name := healthName((v + i) % healthDeployments)
				if _, err := f.Svc.Health(ctx, name); err != nil {
					b.Error(err)
					return
				}
			}
		})
	}
	wg.Wait()
	elapsed := time.Since(start)
	b.StopTimer()
	polls := float64(b.N * viewers)
	b.ReportMetric(float64(elapsed.Nanoseconds())/polls, "ns/poll")
	b.ReportMetric(polls/elapsed.Seconds(), "polls/s")
	b.ReportMetric(float64(lists.Load()), "list-calls")
	b.ReportMetric(elapsed.Seconds(), "seconds")
}

// healthName is the name (and namespace) of the benchmark's i-th deployment.
func healthName(i int) string { return fmt.Sprintf("site-%02d", i) }
