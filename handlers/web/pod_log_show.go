package web

import (
	"net/http"
	"time"

	"github.com/labstack/echo/v4"

	"github.com/styrmin/styrmin"
	"github.com/styrmin/styrmin/deployment"
	"github.com/styrmin/styrmin/views"
)

// PodLogShow is a container's log: the last lines, then, while its panel is
// open, the lines after them. A follower polls (views.PodLogPoll) with the
// time of its newest line (since) instead of holding a stream: each poll is
// one bounded read (kube.MaxLogBytes, kube.LogTimeout) and an idle viewer
// holds no goroutine and no kubelet stream between polls. Opened by htmx,
// the panel; polled (since), its new lines and next poll; else a page.
func PodLogShow(svc deploymentReader) echo.HandlerFunc {
	return func(c echo.Context) error {
		req := deployment.LogRequest{Deployment: c.Param("name"), Pod: c.Param("pod"), Container: c.QueryParam("container")}
		req.Previous = c.QueryParam("previous") == "true"
		since := c.QueryParam("since")
		if since != "" {
			after, err := time.Parse(time.RFC3339Nano, since)
			if err != nil {
				return styrmin.Errorf(styrmin.EINVALID, "since must be a time such as 2026-12-05T10:00:00Z; it is %q.", since)
			}
			req.After = after
		}
		log, err := svc.PodLog(c.Request().Context(), req)
		if err != nil {
			return err
		}
		p := views.PodLogProps{Deployment: req.Deployment, Pod: log.Pod, Container: log.Container, Containers: log.Containers,
			Previous: req.Previous, Cut: log.Cut, Cursor: since}
		for _, l := range log.Lines {
			p.Lines = append(p.Lines, views.PodLogLine{At: l.At, Text: l.Text})
		}
		if n := len(log.Lines); n > 0 && !log.Lines[n-1].At.IsZero() {
			p.Cursor = log.Lines[n-1].At.Format(time.RFC3339Nano)
		}
		switch {
		case !isHTMX(c):
			p.Page = page(c, "Log of "+log.Pod, views.NavDeployments)
			return render(c, http.StatusOK, views.PodLogPage(p))
		case since != "":
			return render(c, http.StatusOK, views.PodLogMore(p))
		}
		return render(c, http.StatusOK, views.PodLogPanel(p))
	}
}
