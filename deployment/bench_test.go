package deployment_test

import (
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/styrmin/styrmin/deployment"
	"github.com/styrmin/styrmin/deployment/deploymenttest"
	"github.com/styrmin/styrmin/devcluster/kubetest"
	"github.com/styrmin/styrmin/release"
)

// BenchmarkUpgradeAgainstHelm upgrades a Hello Web deployment through
// Styrmin (confirm → task queued, run by the executor, components waited
// for) and, in the same iteration, a twin release with Helm's own upgrade
// --wait on the same cluster and chart, and reports both and their ratio.
//
//	go test -run '^$' -bench UpgradeAgainstHelm -benchtime 10x ./deployment/
func BenchmarkUpgradeAgainstHelm(b *testing.B) {
	f := deploymenttest.SetupCluster(b)
	ctx := context.Background()
	name := kubetest.UniqueName("bench")
	twin := kubetest.UniqueName("bench-helm")
	f.CleanUp(b, name)
	f.CleanUp(b, twin)
	f.WaitTask(b, name, deploymenttest.Queued(b)(f.Svc.Queue(ctx, deploymenttest.HelloWeb(name))))

	b.ResetTimer()
	var styrmin, helm time.Duration
	for i := range b.N {
		title := fmt.Sprintf("Bench %d", i)
		b.StopTimer()
		review, err := f.Svc.Review(ctx, &deployment.Upgrade{Name: name, Parameters: deployment.FormInput{"site_title": title, "replicas": "2"}, By: "alice"})
		require.NoError(b, err)
		b.StartTimer()

		start := time.Now()
		f.WaitTask(b, name, deploymenttest.Queued(b)(f.Svc.Queue(ctx, deployment.ConfirmUpgrade{Token: review.Token, By: "alice"})))
		styrmin += time.Since(start)

		b.StopTimer()
		opts := helmTwin(b, f, twin, title, i == 0)
		b.StartTimer()
		start = time.Now()
		if i == 0 {
			_, err = f.Cluster.Releases.Install(ctx, opts)
		} else {
			_, err = f.Cluster.Releases.Upgrade(ctx, release.UpgradeOptions{Namespace: opts.Namespace, Name: opts.Name, Owner: opts.Owner, Chart: opts.Chart, Values: opts.Values, Wait: true, Timeout: opts.Timeout})
		}
		require.NoError(b, err)
		helm += time.Since(start)
	}
	b.ReportMetric(float64(styrmin.Milliseconds())/float64(b.N), "styrmin-ms/upgrade")
	b.ReportMetric(float64(helm.Milliseconds())/float64(b.N), "helm-ms/upgrade")
	b.ReportMetric(float64(styrmin)/float64(helm), "ratio")
}

// twinOwner marks the twin release, which no deployment owns.
var twinOwner = release.Owner{Installation: "bench-helm-twin", Deployment: 1}

// helmTwin is the Helm operation of the twin release: the same chart and
// values Styrmin renders for Hello Web with that title, with Helm's wait.
func helmTwin(b *testing.B, f deploymenttest.ClusterFixture, twin, title string, first bool) release.InstallOptions {
	ctx := context.Background()
	if first {
		_, err := f.Cluster.Kube.EnsureNamespace(ctx, twin, true, nil)
		require.NoError(b, err)
	}
	bundle, err := f.Catalog.Bundle(ctx, "hello-web", "1.0.0")
	require.NoError(b, err)
	values, err := release.Values(ctx, bundle.Driver, map[string]any{"site_title": title, "replicas": int64(2), "message": "", "theme": "ocean", "show_version": true, "memory_mib": int64(64)}, "1.27.0", twin, twin)
	require.NoError(b, err)
	return release.InstallOptions{Namespace: twin, Name: twin, Owner: twinOwner, Chart: bundle.Chart, Values: values, Wait: true, Timeout: 5 * time.Minute}
}
