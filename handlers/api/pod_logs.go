package api

import (
	"bytes"
	"context"
	"encoding/json"
	"strings"
	"time"

	oapi "github.com/styrmin/styrmin/api"
	"github.com/styrmin/styrmin/deployment"
	"github.com/styrmin/styrmin/kube"
)

// GetPodLogs answers the last lines of a container of one of the
// deployment's pods, redacted, as plain text or JSON lines, with the cursor
// that reads the lines after them.
func (s *Server) GetPodLogs(ctx context.Context, req oapi.GetPodLogsRequestObject) (oapi.GetPodLogsResponseObject, error) {
	p := req.Params
	lr := deployment.LogRequest{Deployment: req.Name, Pod: req.Pod}
	if p.Container != nil {
		lr.Container = *p.Container
	}
	if p.TailLines != nil {
		lr.TailLines = *p.TailLines
	}
	if p.Previous != nil {
		lr.Previous = *p.Previous
	}
	if p.Since != nil {
		lr.After = *p.Since
	}
	log, err := s.Deployments.PodLog(ctx, lr)
	if err != nil {
		return nil, err
	}
	headers := oapi.GetPodLogs200ResponseHeaders{}
	if n := len(log.Lines); n > 0 && !log.Lines[n-1].At.IsZero() {
		cursor := log.Lines[n-1].At.Format(time.RFC3339Nano)
		headers.StyrminLogCursor = &cursor
	}
	if log.Cut {
		cut := "true"
		headers.StyrminLogCut = &cut
	}
	if p.Format != nil && *p.Format == oapi.Jsonl {
		body, err := jsonLines(log.Lines)
		if err != nil {
			return nil, err
		}
		return oapi.GetPodLogs200ApplicationjsonlResponse{Body: bytes.NewReader(body), Headers: headers, ContentLength: int64(len(body))}, nil
	}
	var text strings.Builder
	for _, l := range log.Lines {
		text.WriteString(l.Text)
		text.WriteByte('\n')
	}
	return oapi.GetPodLogs200TextResponse{Body: text.String(), Headers: headers}, nil
}

// jsonLines writes lines as one ContainerLogLine object per line.
func jsonLines(lines []kube.LogLine) ([]byte, error) {
	var out bytes.Buffer
	enc := json.NewEncoder(&out)
	for _, l := range lines {
		line := oapi.ContainerLogLine{Text: l.Text}
		if !l.At.IsZero() {
			line.At = &l.At
		}
		if err := enc.Encode(line); err != nil {
			return nil, err
		}
	}
	return out.Bytes(), nil
}
