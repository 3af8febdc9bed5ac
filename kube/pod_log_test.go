package kube_test

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/client-go/kubernetes/fake"
	k8stesting "k8s.io/client-go/testing"

	"github.com/styrmin/styrmin/kube"
	"github.com/styrmin/styrmin/redact"
)

// logServer is a fake clientset whose kubelet answers every log read with
// log, ignoring the bounds asked for (as a hostile or broken one might), and
// records the options of each read.
func logServer(log string) (*fake.Clientset, *[]*corev1.PodLogOptions) {
	clientset := fake.NewClientset()
	var asked []*corev1.PodLogOptions
	clientset.PrependReactor("get", "pods", func(a k8stesting.Action) (bool, runtime.Object, error) {
		if a.GetSubresource() != "log" {
			return false, nil, nil
		}
		asked = append(asked, a.(k8stesting.GenericAction).GetValue().(*corev1.PodLogOptions))
		return true, &runtime.Unknown{Raw: []byte(log)}, nil
	})
	return clientset, &asked
}

func TestPodLogReadsTimedLinesAfterACursorWithinItsBounds(t *testing.T) {
	t.Parallel()
	clientset, asked := logServer("2026-12-05T10:00:01.100000000Z starting\n" +
		"2026-12-05T10:00:01.500000000Z listening on :8080\n" +
		"2026-12-05T10:00:02.000000000Z GET / 200\n")
	cursor := time.Date(2026, 12, 5, 10, 0, 1, 100000000, time.UTC)

	log, err := kube.PodLog(context.Background(), clientset, "shop", "shop-web-1", kube.LogOptions{Container: "web", TailLines: 50, After: cursor}, nil)
	require.NoError(t, err)
	require.Equal(t, []kube.LogLine{
		{At: time.Date(2026, 12, 5, 10, 0, 1, 500000000, time.UTC), Text: "listening on :8080"},
		{At: time.Date(2026, 12, 5, 10, 0, 2, 0, time.UTC), Text: "GET / 200"},
	}, log.Lines, "the lines after the cursor only, their timestamps apart")
	require.False(t, log.Cut)

	require.Len(t, *asked, 1)
	o := (*asked)[0]
	require.Equal(t, "web", o.Container)
	require.Equal(t, int64(50), *o.TailLines)
	require.Equal(t, int64(kube.MaxLogBytes), *o.LimitBytes, "the kubelet is asked for a bounded answer")
	require.True(t, o.Timestamps)
	require.Equal(t, cursor.Truncate(time.Second), o.SinceTime.Time, "the API takes whole seconds")
}

func TestPodLogOfAFloodStaysWithinItsByteBound(t *testing.T) {
	t.Parallel()
	flood := strings.Repeat("A", 20<<20) // one 20 MB line, from a kubelet that ignores LimitBytes
	clientset, _ := logServer("2026-12-05T10:00:00Z before\n" + flood + "\n")

	log, err := kube.PodLog(context.Background(), clientset, "shop", "shop-web-1", kube.LogOptions{TailLines: 10}, nil)
	require.NoError(t, err)
	require.True(t, log.Cut, "the read stopped at its bound")
	require.Equal(t, []kube.LogLine{{At: time.Date(2026, 12, 5, 10, 0, 0, 0, time.UTC), Text: "before"}}, log.Lines,
		"the part of the flood within the bound is left out: it is not a whole line")
}

func TestPodLogRedactsALongLineBeforeCuttingIt(t *testing.T) {
	t.Parallel()
	secret := "s3cret-password-42"
	long := strings.Repeat("x", kube.MaxLogLineBytes-3) + secret + strings.Repeat("y", 100)
	clientset, _ := logServer("2026-12-05T10:00:00Z password is " + secret + "\n2026-12-05T10:00:01Z " + long + "\n")

	log, err := kube.PodLog(context.Background(), clientset, "shop", "shop-web-1", kube.LogOptions{TailLines: 10}, redact.New(secret))
	require.NoError(t, err)
	require.Len(t, log.Lines, 2)
	require.Equal(t, "password is "+redact.Mark, log.Lines[0].Text)
	require.NotContains(t, log.Lines[1].Text, "s3c", "a cut through a secret shows no part of it")
	require.LessOrEqual(t, len(log.Lines[1].Text), kube.MaxLogLineBytes+len(" … (1000 more bytes left out)"))
	require.True(t, strings.HasSuffix(log.Lines[1].Text, " … (107 more bytes left out)"), log.Lines[1].Text[kube.MaxLogLineBytes-10:])
}
