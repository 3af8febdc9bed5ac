package deployment_test

import (
	"context"
	"testing"

	"github.com/stretchr/testify/require"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	k8stesting "k8s.io/client-go/testing"

	"github.com/styrmin/styrmin"
	"github.com/styrmin/styrmin/deployment"
	"github.com/styrmin/styrmin/deployment/deploymenttest"
	"github.com/styrmin/styrmin/kube"
	"github.com/styrmin/styrmin/redact"
	"github.com/styrmin/styrmin/release/releasetest"
)

// podLogFixture is PostgreSQL deployment "db" on crashingPostgres, beside a
// pod of no release in its namespace, whose containers log a line that
// quotes the deployment's password; reads lists the pods whose log was read.
func podLogFixture(t *testing.T) (deploymenttest.Fixture, *[]string) {
	clientset := crashingPostgres()
	stray := &corev1.Pod{ObjectMeta: metav1.ObjectMeta{Name: "stray-0", Namespace: "db"}, Spec: corev1.PodSpec{Containers: []corev1.Container{{Name: "c"}}}}
	_, err := clientset.CoreV1().Pods("db").Create(context.Background(), stray, metav1.CreateOptions{})
	require.NoError(t, err)
	var reads []string
	clientset.PrependReactor("get", "pods", func(a k8stesting.Action) (bool, runtime.Object, error) {
		if a.GetSubresource() != "log" {
			return false, nil, nil
		}
		reads = append(reads, a.GetNamespace()+"/"+a.(k8stesting.GenericAction).GetValue().(*corev1.PodLogOptions).Container)
		return true, &runtime.Unknown{Raw: []byte("2026-12-05T10:00:00Z FATAL: password s3cret-password refused\n")}, nil
	})
	f := deploymenttest.Setup(t, &deployment.Cluster{Kube: &kube.Client{Clientset: clientset}, Releases: releasetest.New(t).Client})
	_, err = f.Svc.Queue(context.Background(), deploymenttest.Postgres("db"))
	require.NoError(t, err)
	return f, &reads
}

func TestPodLogShowsTheDeploymentsSecretsRedacted(t *testing.T) {
	t.Parallel()
	f, reads := podLogFixture(t)

	log, err := f.Svc.PodLog(context.Background(), deployment.LogRequest{Deployment: "db", Pod: "db-postgresql-0"})
	require.NoError(t, err)
	require.Equal(t, "postgres", log.Container, "the pod's first container when none is named")
	require.Len(t, log.Lines, 1)
	require.Equal(t, "FATAL: password "+redact.Mark+" refused", log.Lines[0].Text)
	require.Equal(t, []string{"db/postgres"}, *reads)
}

func TestPodLogReadsOnlyTheReleasesPods(t *testing.T) {
	t.Parallel()
	f, reads := podLogFixture(t)
	ctx := context.Background()

	for _, pod := range []string{"stray-0", "other-web-1", "../db-postgresql-0"} {
		_, err := f.Svc.PodLog(ctx, deployment.LogRequest{Deployment: "db", Pod: pod})
		require.Equal(t, styrmin.ENOTFOUND, styrmin.ErrorCode(err), "pod %s: %v", pod, err)
	}
	_, err := f.Svc.PodLog(ctx, deployment.LogRequest{Deployment: "nope", Pod: "db-postgresql-0"})
	require.Equal(t, styrmin.ENOTFOUND, styrmin.ErrorCode(err))
	require.Empty(t, *reads, "no log was read: a pod that is not the release's is not asked for")
}

func TestPodLogRefusesBadRequestsClearly(t *testing.T) {
	t.Parallel()
	f, reads := podLogFixture(t)
	ctx := context.Background()

	for _, tc := range []struct {
		req  deployment.LogRequest
		want string
	}{
		{deployment.LogRequest{Deployment: "db", Pod: "db-postgresql-0", LogOptions: kube.LogOptions{TailLines: kube.MaxLogLines + 1}}, "tail_lines must be between 1 and 2000; it is 2001."},
		{deployment.LogRequest{Deployment: "db", Pod: "db-postgresql-0", LogOptions: kube.LogOptions{TailLines: -1}}, "tail_lines must be between 1 and 2000; it is -1."},
		{deployment.LogRequest{Deployment: "db", Pod: "db-postgresql-0", Container: "sidecar"}, "Pod db-postgresql-0 has no container sidecar; its containers are [postgres]."},
	} {
		_, err := f.Svc.PodLog(ctx, tc.req)
		require.Equal(t, styrmin.EINVALID, styrmin.ErrorCode(err))
		require.Equal(t, tc.want, styrmin.ErrorMessage(err))
	}
	require.Empty(t, *reads)
}
