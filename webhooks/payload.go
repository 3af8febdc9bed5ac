package webhooks

import (
	"encoding/json"
	"fmt"
	"net/url"
	"strings"
	"time"

	"github.com/styrmin/styrmin/db"
	"github.com/styrmin/styrmin/redact"
)

// Payload is the JSON document a delivery in FormatJSON carries.
type Payload struct {
	Event      Event  `json:"event"`
	TaskID     int64  `json:"task_id"`
	Kind       string `json:"kind"`
	Deployment string `json:"deployment"`
	// Status is the task's status: running, succeeded, failed or canceled.
	Status db.TaskStatus `json:"status"`
	// Message says how the task ended, its secrets replaced with <redacted>.
	Message   string     `json:"message"`
	CreatedBy string     `json:"created_by"`
	StartedAt *time.Time `json:"started_at,omitempty"`
	EndedAt   *time.Time `json:"ended_at,omitempty"`
	// URL is the task's page, when Styrmin knows its own public URL.
	URL string `json:"url,omitempty"`
}

// payloadOf is the payload of event for task on deployment. The message is
// the task's row's, which its run's redactor wrote (it hides the
// deployment's secret values), and it goes through the common forms of
// secrets once more here.
func payloadOf(event Event, task db.Task, deployment, baseURL string) Payload {
	p := Payload{Event: event, TaskID: task.ID, Kind: task.Kind, Deployment: deployment, Status: task.Status,
		Message: redact.New().String(task.Message), CreatedBy: task.CreatedBy, StartedAt: task.StartedAt, EndedAt: task.EndedAt}
	if baseURL != "" {
		p.URL = fmt.Sprintf("%s/deployments/%s/tasks/%d", strings.TrimSuffix(baseURL, "/"), url.PathEscape(deployment), task.ID)
	}
	return p
}

// slackMessage is a message for Slack's incoming webhooks.
type slackMessage struct {
	Text string `json:"text"`
}

// message is a delivery's document, which can say itself in one line.
type message interface {
	// slackText says what happened in one line of Slack's mrkdwn.
	slackText() string
}

// body is what a delivery of m in format sends.
func body(m message, format Format) ([]byte, error) {
	if format != FormatSlack {
		return json.Marshal(m)
	}
	return json.Marshal(slackMessage{Text: m.slackText()})
}

// slackText says what happened to the task, linking its page when there is one.
func (p Payload) slackText() string {
	task := fmt.Sprintf("Task %d", p.TaskID)
	if p.URL != "" {
		task = fmt.Sprintf("<%s|%s>", p.URL, task)
	}
	text := fmt.Sprintf("%s (%s of %s) %s", task, p.Kind, slackEscape(p.Deployment), p.Event)
	if p.Message != "" {
		text += ": " + slackEscape(p.Message)
	}
	return text
}

// slackEscape escapes the characters Slack reads as markup.
func slackEscape(s string) string {
	return strings.NewReplacer("&", "&amp;", "<", "&lt;", ">", "&gt;").Replace(s)
}
