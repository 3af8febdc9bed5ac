package actions

import (
	"context"
	"errors"
	"io"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes/fake"
)

// brokenLog plays the kubelet's log endpoint for a pod on a fake cluster:
// each opening of the log gets the next of streams (stamped lines), and the
// options it was opened with are kept. Before the stream of index end is
// handed out, the container ends.
type brokenLog struct {
	t       *testing.T
	client  *fake.Clientset
	pod     *corev1.Pod
	streams []string
	end     int

	mu     sync.Mutex
	opened []*corev1.PodLogOptions
}

func (b *brokenLog) open(ctx context.Context, _ *corev1.Pod, opts *corev1.PodLogOptions) (io.ReadCloser, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	i := len(b.opened)
	b.opened = append(b.opened, opts)
	if i == b.end {
		pod := b.pod.DeepCopy()
		pod.Status.ContainerStatuses = []corev1.ContainerStatus{{Name: ContainerName, State: corev1.ContainerState{Terminated: &corev1.ContainerStateTerminated{ExitCode: 0}}}}
		_, err := b.client.CoreV1().Pods(pod.Namespace).UpdateStatus(ctx, pod, metav1.UpdateOptions{})
		require.NoError(b.t, err)
	}
	if i >= len(b.streams) {
		return nil, errors.New("no such stream")
	}
	return io.NopCloser(strings.NewReader(b.streams[i])), nil
}

// followBrokenLog follows the log of a running pod whose streams are log's,
// and returns the messages read.
func followBrokenLog(t *testing.T, log *brokenLog) []string {
	t.Helper()
	log.t = t
	log.pod = &corev1.Pod{ObjectMeta: metav1.ObjectMeta{Name: "web-action-7", Namespace: "shop"},
		Status: corev1.PodStatus{Phase: corev1.PodRunning, ContainerStatuses: []corev1.ContainerStatus{
			{Name: ContainerName, State: corev1.ContainerState{Running: &corev1.ContainerStateRunning{}}}}}}
	log.client = fake.NewClientset(log.pod)
	p := &Pod{Client: log.client, logSource: log.open}
	var messages []string
	var out Outcome
	lines := newLineSink(func(l Line) { messages = append(messages, l.Level+" "+l.Message) }, &out)
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	p.followLog(ctx, log.pod, lines)
	lines.finish()
	return messages
}

// stamped is a log line as the kubelet sends it with timestamps.
func stamped(at time.Time, text string) string {
	return at.Format(time.RFC3339Nano) + " " + text + "\n"
}

// A log stream that breaks off while the action runs is opened again from
// its last line: no line is lost, none comes twice, and what the action
// wrote between the last break and its end ("four", after the second
// stream broke) is read once it has ended.
func TestABrokenLogStreamIsFollowedAgainFromWhereItBroke(t *testing.T) {
	t.Parallel()
	t0 := time.Date(2026, 12, 4, 18, 0, 0, 0, time.UTC)
	at := func(ms int) time.Time { return t0.Add(time.Duration(ms) * time.Millisecond) }
	log := &brokenLog{end: 1, streams: []string{
		stamped(at(100), "one") + stamped(at(2100), "two"),
		stamped(at(2100), "two") + stamped(at(2500), "three"),
		stamped(at(2100), "two") + stamped(at(2500), "three") + stamped(at(2700), "four"),
	}}
	require.Equal(t, []string{"INFO one", "INFO two", "INFO three", "INFO four"}, followBrokenLog(t, log))

	require.Len(t, log.opened, 3, "the first stream, the one after the break, the one after the end")
	require.Nil(t, log.opened[0].SinceTime)
	for i, opts := range log.opened {
		require.True(t, opts.Follow && opts.Timestamps, "stream %d is followed and stamped", i)
	}
	require.Equal(t, at(2100), log.opened[1].SinceTime.Time, "from the last line read")
	require.Equal(t, at(2500), log.opened[2].SinceTime.Time)
}

// Within one stream no line is skipped, though the kubelet's stamps of
// standard output and standard error are not in order, nor all different.
func TestEveryLineOfAStreamIsReadWhateverItsStamp(t *testing.T) {
	t.Parallel()
	t0 := time.Date(2026, 12, 4, 18, 0, 0, 0, time.UTC)
	log := &brokenLog{end: 0, streams: []string{
		stamped(t0.Add(100), "out 1") + stamped(t0.Add(90), "err 1") + stamped(t0.Add(100), "out 2") + stamped(t0.Add(120), "err 2"),
	}}
	require.Equal(t, []string{"INFO out 1", "INFO err 1", "INFO out 2", "INFO err 2"}, followBrokenLog(t, log))
}

// A log that never opens leaves one warning, read by the task's step.
func TestALogThatNeverOpensSaysSo(t *testing.T) {
	t.Parallel()
	log := &brokenLog{end: 1}
	require.Equal(t, []string{"WARNING the action's log could not be read: no such stream"}, followBrokenLog(t, log))
	require.Len(t, log.opened, 3, "opened again while the container ran, and once after its end")
}

// A runner's line as long as the protocol allows is read whole after the
// kubelet's timestamp, the longest one too: a long ERROR record keeps its
// level.
func TestALongestProtocolLineIsReadWholeAfterItsTimestamp(t *testing.T) {
	t.Parallel()
	at := time.Date(2026, 12, 4, 18, 0, 0, 123456789, time.FixedZone("", 90*60))
	message := strings.Repeat("x", MaxLineBytes-len(`{"t": "log", "level": "ERROR", "msg": ""}`+"\n"))
	record := `{"t": "log", "level": "ERROR", "msg": "` + message + `"}`
	require.Len(t, record+"\n", MaxLineBytes)
	log := &brokenLog{end: 0, streams: []string{stamped(at, record)}}
	require.Equal(t, []string{"ERROR " + message}, followBrokenLog(t, log))
}
