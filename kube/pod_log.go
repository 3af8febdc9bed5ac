package kube

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"time"
	"unicode/utf8"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes"
	"k8s.io/utils/ptr"

	"github.com/styrmin/styrmin/redact"
)

// The bounds of one read of a container's log (PodLog): the kubelet sends
// at most MaxLogBytes of the last lines asked for, within LogTimeout.
const (
	// DefaultLogLines is how many of the last lines a read asks for when its caller names none.
	DefaultLogLines = 200
	// MaxLogLines is the most lines one read may ask for.
	MaxLogLines = 2000
	// MaxLogBytes is the most bytes of log one read takes from the kubelet
	// (its LimitBytes, and a limit on the stream in case it ignores it).
	MaxLogBytes = 512 << 10
	// MaxLogLineBytes is the most bytes of one line shown, after redaction;
	// a longer line keeps its start and says how much was left out.
	MaxLogLineBytes = 8 << 10
	// LogTimeout bounds one read, the kubelet's answer included.
	LogTimeout = 10 * time.Second
)

// LogOptions says which part of a container's log to read.
type LogOptions struct {
	// Container names the container (required by the API server when the pod has several).
	Container string
	// TailLines is how many of the last lines to read, 1 to MaxLogLines.
	TailLines int
	// Previous reads the log of the container's previous run (after a crash).
	Previous bool
	// After, when not zero, reads only the lines the runtime recorded after
	// it: a follower's cursor, the At of the last line it has.
	After time.Time
}

// LogLine is one line of a container's log.
type LogLine struct {
	// At is when the container runtime recorded the line; zero when the
	// kubelet's answer did not say.
	At time.Time
	// Text is the line, redacted, at most MaxLogLineBytes and a note.
	Text string
}

// Log is one read of a container's log.
type Log struct {
	Lines []LogLine
	// Cut says the read reached MaxLogBytes: the lines after the last
	// shown were left out (read again with After to get them).
	Cut bool
}

// PodLog reads the last lines of a container's log through clientset
// (whose identity must be allowed pods/log in namespace), within the bounds
// above, each line redacted by r. An error is the API server's, wrapped:
// the caller tells a missing pod (NotFound) and a bad request (BadRequest:
// an unknown container, none named in a pod of several, no previous run)
// apart with apierrors.
func PodLog(ctx context.Context, clientset kubernetes.Interface, namespace, pod string, o LogOptions, r *redact.Redactor) (*Log, error) {
	ctx, cancel := context.WithTimeout(ctx, LogTimeout)
	defer cancel()
	opts := &corev1.PodLogOptions{Container: o.Container, TailLines: ptr.To(int64(o.TailLines)), Previous: o.Previous,
		LimitBytes: ptr.To(int64(MaxLogBytes)), Timestamps: true}
	if !o.After.IsZero() {
		// The API takes whole seconds: the lines of After's second up to After are dropped below.
		opts.SinceTime = ptr.To(metav1.NewTime(o.After.Truncate(time.Second)))
	}
	stream, err := clientset.CoreV1().Pods(namespace).GetLogs(pod, opts).Stream(ctx)
	if err != nil {
		return nil, fmt.Errorf("kube: log of pod %s/%s: %w", namespace, pod, err)
	}
	defer stream.Close()
	raw, err := io.ReadAll(io.LimitReader(stream, MaxLogBytes))
	if err != nil && len(raw) == 0 {
		return nil, fmt.Errorf("kube: log of pod %s/%s: %w", namespace, pod, err)
	}
	// A read that ended early (the timeout, a dropped connection) keeps its whole lines.
	return parseLog(raw, err != nil || len(raw) == MaxLogBytes, o.After, r), nil
}

// parseLog splits raw (lines with the runtime's timestamps) into a Log,
// keeping the lines recorded after after; cut says raw stops where a bound
// did, so that its last line, unless it ends with a line break, is part of
// a line and is dropped: a secret it cuts would not be recognized.
func parseLog(raw []byte, cut bool, after time.Time, r *redact.Redactor) *Log {
	out := &Log{}
	if len(raw) > 0 && raw[len(raw)-1] != '\n' && cut {
		i := bytes.LastIndexByte(raw, '\n')
		raw, out.Cut = raw[:i+1], true
	}
	var texts []string
	for line := range bytes.Lines(raw) {
		line = bytes.TrimRight(line, "\r\n")
		l := LogLine{Text: string(line)}
		if stamp, text, ok := bytes.Cut(line, []byte{' '}); ok {
			if at, err := time.Parse(time.RFC3339Nano, string(stamp)); err == nil {
				l = LogLine{At: at, Text: string(text)}
			}
		}
		if !after.IsZero() && !l.At.After(after) {
			continue
		}
		out.Lines = append(out.Lines, l)
		texts = append(texts, l.Text)
	}
	for i, text := range r.Lines(texts) {
		out.Lines[i].Text = cutLine(text)
	}
	return out
}

// cutLine returns text when it fits in MaxLogLineBytes, else its start, cut
// at a character boundary, and how many bytes were left out.
func cutLine(text string) string {
	if len(text) <= MaxLogLineBytes {
		return text
	}
	end := MaxLogLineBytes
	for end > 0 && !utf8.RuneStart(text[end]) {
		end--
	}
	return fmt.Sprintf("%s … (%d more bytes left out)", text[:end], len(text)-end)
}
