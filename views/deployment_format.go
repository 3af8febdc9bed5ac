package views

import (
	"net/url"
	"strconv"
	"strings"
	"time"
)

// Viewer is who looks at a fragment that is rendered without the layout
// (a live task): whether to offer buttons, and the CSRF token their forms carry.
type Viewer struct {
	// CanChange shows the buttons of operators and admins.
	CanChange bool
	// IsAdmin shows the buttons of admins only (approving permissions).
	IsAdmin   bool
	CSRFToken string
}

// Viewer returns who looks at the page, for the fragments it embeds.
func (p Page) Viewer() Viewer {
	return Viewer{CanChange: p.User.CanChange(), IsAdmin: p.User.IsAdmin(), CSRFToken: p.CSRFToken}
}

// deploymentURL is the address of a deployment's page, or of one of its
// sub-resources when parts are given.
func deploymentURL(name string, parts ...string) string {
	u := "/deployments/" + url.PathEscape(name)
	for _, p := range parts {
		u += "/" + p
	}
	return u
}

// taskURL is the address of a task's live fragment, or of one of its actions.
func taskURL(deployment string, id int64, parts ...string) string {
	return deploymentURL(deployment, append([]string{"tasks", strconv.FormatInt(id, 10)}, parts...)...)
}

// olderTasksURL is the address of the page of tasks older than the task before.
func olderTasksURL(deployment string, before int64) string {
	return deploymentURL(deployment, "tasks") + "?before=" + strconv.FormatInt(before, 10)
}

// driverPageURL is the address of a driver version's page.
func driverPageURL(name, version string) string {
	return "/drivers/" + url.PathEscape(name) + "?version=" + url.QueryEscape(version)
}

// busyLabel says what a deployment is busy with while a task of kind runs.
func busyLabel(kind string) string {
	if words, ok := wordsOf(kind); ok {
		return words.busy
	}
	return "working…"
}

// statusClass is the badge colour of a deployment, task or step status.
func statusClass(status string) string {
	switch status {
	case StatusDeployed, StatusSucceeded:
		return "badge-success"
	case StatusFailed:
		return "badge-danger"
	case StatusPending, StatusDeleting, StatusQueued, StatusWarning:
		return "badge-warning"
	case StatusRunning:
		return "badge-running"
	}
	return "badge-neutral"
}

// stepIcon is the symbol of a step's status.
func stepIcon(status string) string {
	switch status {
	case StatusSucceeded:
		return "✓"
	case StatusFailed:
		return "✕"
	case StatusWarning:
		return "!"
	case StatusCanceled:
		return "–"
	case StatusRunning:
		return "…"
	}
	return "·"
}

// taskActive reports whether a task still changes and its fragment polls.
func taskActive(status string) bool { return status == StatusQueued || status == StatusRunning }

// isoTime is a time for a datetime attribute.
func isoTime(t time.Time) string { return t.UTC().Format(time.RFC3339) }

// fullTime is a time as a tooltip and as the text of tables.
func fullTime(t time.Time) string { return t.UTC().Format("2006-01-02 15:04:05 UTC") }

// ago says how long ago t was, such as "5 min ago".
func ago(t time.Time) string {
	return agoAt(t, time.Now())
}

// agoAt says how long before now t was.
func agoAt(t, now time.Time) string {
	d := now.Sub(t)
	switch {
	case d < 45*time.Second:
		return "just now"
	case d < 90*time.Minute:
		return strconv.Itoa(max(1, int(d.Round(time.Minute)/time.Minute))) + " min ago"
	case d < 36*time.Hour:
		return strconv.Itoa(int(d.Round(time.Hour)/time.Hour)) + " h ago"
	case d < 30*24*time.Hour:
		return strconv.Itoa(int(d.Round(24*time.Hour)/(24*time.Hour))) + " days ago"
	}
	return t.UTC().Format("2006-01-02")
}

// span says how long from start to end took, or has taken so far when end is
// zero; "" when start is zero.
func span(start, end time.Time) string {
	if start.IsZero() {
		return ""
	}
	if end.IsZero() {
		end = time.Now()
	}
	return formatDuration(end.Sub(start))
}

// formatDuration writes d in its two largest units, such as "3 min 5 s".
func formatDuration(d time.Duration) string {
	switch {
	case d < 0:
		return "0 s"
	case d < time.Second:
		return strconv.Itoa(int(d/time.Millisecond)) + " ms"
	case d < time.Minute:
		return strconv.Itoa(int(d/time.Second)) + " s"
	case d < time.Hour:
		m, s := int(d/time.Minute), int(d%time.Minute/time.Second)
		if s == 0 {
			return strconv.Itoa(m) + " min"
		}
		return strconv.Itoa(m) + " min " + strconv.Itoa(s) + " s"
	}
	h, m := int(d/time.Hour), int(d%time.Hour/time.Minute)
	if m == 0 {
		return strconv.Itoa(h) + " h"
	}
	return strconv.Itoa(h) + " h " + strconv.Itoa(m) + " min"
}

// lineCount says how many lines text has, in words.
func lineCount(text string) string {
	n := len(splitLines(text))
	if n == 1 {
		return "1 line"
	}
	return strconv.Itoa(n) + " lines"
}

// splitLines splits text into lines, without a last empty one.
func splitLines(text string) []string {
	text = strings.TrimSuffix(text, "\n")
	if text == "" {
		return nil
	}
	return strings.Split(text, "\n")
}

// plural writes n and the noun, with an s when n is not 1.
func plural(n int, noun string) string {
	if n == 1 {
		return "1 " + noun
	}
	return strconv.Itoa(n) + " " + noun + "s"
}

// joinIDs joins the non-empty ids for aria-describedby.
func joinIDs(ids ...string) string {
	var out []string
	for _, id := range ids {
		if id != "" {
			out = append(out, id)
		}
	}
	return strings.Join(out, " ")
}

// driverDeployURL is the address of a driver's install form.
func driverDeployURL(name string) string {
	return "/drivers/" + url.PathEscape(name) + "/deploy"
}
