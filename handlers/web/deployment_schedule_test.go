package web_test

import (
	"context"
	"net/http"
	"net/url"
	"testing"

	"github.com/jackc/pgx/v5"
	"github.com/stretchr/testify/require"

	"github.com/styrmin/styrmin/handlers/handlerstest"
)

// TestSchedulesAreMadeOnTheDeploymentPageAndReadOnlyUsersOnlySeeThem: an
// operator schedules a manual action from the form under it, pauses and
// resumes it; a read-only user sees the schedule and its next runs, gets
// no button, and their crafted POSTs are refused.
func TestSchedulesAreMadeOnTheDeploymentPageAndReadOnlyUsersOnlySeeThem(t *testing.T) {
	t.Parallel()
	d := handlerstest.SetupDeployments(t)
	d.Install(t, handlerstest.HelloInstall("site"))

	doc := handlerstest.Parse(t, d.Request(d.Operator, http.MethodGet, "/deployments/site", nil))
	form := doc.Find(`[data-testid="schedule-form-fetch_page"] form`)
	require.Equal(t, "/deployments/site/schedules", form.AttrOr("action", ""))
	require.Equal(t, "/", form.Find(`[name="prompt.fetch_page.path"]`).AttrOr("value", ""), "the action's prompt, from its default")
	require.Contains(t, handlerstest.Text(doc.Find(`[data-testid="deployment-schedules"]`)), "No scheduled actions")

	rec := d.Request(d.Operator, http.MethodPost, "/deployments/site/schedules", url.Values{"action": {"fetch_page"},
		"cron": {"0 25 * * *"}, "time_zone": {"Europe/Oslo"}, "prompt.fetch_page.path": {"no-slash"}})
	require.Equal(t, http.StatusSeeOther, rec.Code, rec.Body.String())
	flashes := d.Flashes(t, d.Operator, rec)
	require.Len(t, flashes, 1)
	require.Contains(t, flashes[0], "not a cron expression")
	require.Contains(t, flashes[0], "does not match the pattern")

	rec = d.Request(d.Operator, http.MethodPost, "/deployments/site/schedules", url.Values{"action": {"fetch_page"},
		"cron": {"30 2 * * *"}, "time_zone": {"Europe/Oslo"}, "overlap": {"queue"}, "missed": {"skip"}, "prompt.fetch_page.path": {"/health"}})
	require.Equal(t, http.StatusSeeOther, rec.Code, rec.Body.String())

	reader := handlerstest.Parse(t, d.Request(d.Reader, http.MethodGet, "/deployments/site", nil))
	rows := reader.Find(`[data-testid="deployment-schedules"] tbody tr`)
	require.Equal(t, 1, rows.Length())
	id := rows.AttrOr("data-testid", "")[len("schedule-"):]
	require.Equal(t, 3, rows.Find(`[data-testid="schedule-next"] time`).Length(), "the next three runs")
	require.Contains(t, handlerstest.Text(rows), "30 2 * * *")
	require.Contains(t, handlerstest.Text(rows), "olga")
	require.Zero(t, rows.Find("form").Length(), "a read-only user gets no button")

	for _, path := range []string{"/deployments/site/schedules", "/deployments/site/schedules/" + id + "/pause", "/deployments/site/schedules/" + id + "/delete"} {
		rec := d.Request(d.Reader, http.MethodPost, path, url.Values{"action": {"fetch_page"}, "cron": {"* * * * *"}, "time_zone": {"UTC"}})
		require.Equal(t, http.StatusForbidden, rec.Code, path)
		require.Contains(t, rec.Body.String(), "This needs the operator role", "refused for the role, with a good token")
	}
	after := handlerstest.Parse(t, d.Request(d.Reader, http.MethodGet, "/deployments/site", nil))
	require.Equal(t, 1, after.Find(`[data-testid="deployment-schedules"] tbody tr`).Length())
	require.Equal(t, 3, after.Find(`[data-testid="schedule-next"] time`).Length(), "not paused")

	rec = d.Request(d.Operator, http.MethodPost, "/deployments/site/schedules/"+id+"/pause", url.Values{})
	require.Equal(t, http.StatusSeeOther, rec.Code, rec.Body.String())
	paused := handlerstest.Parse(t, d.Request(d.Operator, http.MethodGet, "/deployments/site", nil))
	require.Zero(t, paused.Find(`[data-testid="schedule-next"] time`).Length())
	require.Equal(t, "resume", handlerstest.Text(paused.Find(`[data-testid="deployment-schedules"] form button`).First()))
}

// TestAScheduleOfABackupKeepsTheLastOnesFromThePage: only an action with
// artefacts has retention fields; the nightly backup keeping 7 is made on
// the page and shows what it keeps and which action prunes.
func TestAScheduleOfABackupKeepsTheLastOnesFromThePage(t *testing.T) {
	t.Parallel()
	d := handlerstest.SetupDeployments(t)
	d.Install(t, handlerstest.PgInstall("orders"))

	doc := handlerstest.Parse(t, d.Request(d.Operator, http.MethodGet, "/deployments/orders", nil))
	require.Equal(t, 1, doc.Find(`[data-testid="schedule-form-take_backup"] [data-testid="schedule-retention-fields"] [name="keep_last"]`).Length())
	require.Zero(t, doc.Find(`[data-testid="schedule-form-vacuum"] [name="keep_last"]`).Length(), "vacuum makes no artefacts")

	rec := d.Request(d.Operator, http.MethodPost, "/deployments/orders/schedules", url.Values{"action": {"take_backup"},
		"cron": {"0 2 * * *"}, "time_zone": {"UTC"}, "keep_last": {"seven"}, "prompt.take_backup.label": {"nightly"}})
	require.Equal(t, http.StatusSeeOther, rec.Code, rec.Body.String())
	require.Contains(t, d.Flashes(t, d.Operator, rec)[0], `"seven" is not a whole number`)

	rec = d.Request(d.Operator, http.MethodPost, "/deployments/orders/schedules", url.Values{"action": {"take_backup"},
		"cron": {"0 2 * * *"}, "time_zone": {"UTC"}, "keep_last": {"7"}, "keep_days": {""}, "prompt.take_backup.label": {"nightly"}})
	require.Equal(t, http.StatusSeeOther, rec.Code, rec.Body.String())
	reader := handlerstest.Parse(t, d.Request(d.Reader, http.MethodGet, "/deployments/orders", nil))
	require.Equal(t, "keeps the last 7, pruned by prune_backups", handlerstest.Text(reader.Find(`[data-testid="schedule-retention"]`)))
}

// TestAScheduleIsEditedInItsRowAndNotByAReadOnlyUser: an operator's row
// holds an edit form filled with the schedule (retention fields for an
// action with artefacts), sent by htmx; a bad cron comes back as a
// creation's would; a read-only user gets no form and their crafted edit
// is refused, changing nothing; the operator's edit is saved and audited.
func TestAScheduleIsEditedInItsRowAndNotByAReadOnlyUser(t *testing.T) {
	t.Parallel()
	d := handlerstest.SetupDeployments(t)
	d.Install(t, handlerstest.PgInstall("orders"))
	rec := d.Request(d.Operator, http.MethodPost, "/deployments/orders/schedules", url.Values{"action": {"take_backup"},
		"cron": {"0 2 * * *"}, "time_zone": {"UTC"}, "keep_last": {"7"}, "prompt.take_backup.label": {"nightly"}})
	require.Equal(t, http.StatusSeeOther, rec.Code, rec.Body.String())

	doc := handlerstest.Parse(t, d.Request(d.Operator, http.MethodGet, "/deployments/orders", nil))
	row := doc.Find(`[data-testid="deployment-schedules"] tbody tr`)
	id := row.AttrOr("data-testid", "")[len("schedule-"):]
	edit := row.Find(`[data-testid="schedule-edit-` + id + `"] form`)
	require.Equal(t, "/deployments/orders/schedules/"+id+"/edit", edit.AttrOr("action", ""))
	require.Equal(t, "true", edit.AttrOr("hx-boost", ""), "sent by htmx, without a reload")
	require.Equal(t, "0 2 * * *", edit.Find(`[name="cron"]`).AttrOr("value", ""), "filled with the schedule")
	require.Equal(t, "7", edit.Find(`[name="keep_last"]`).AttrOr("value", ""))
	require.Equal(t, "", edit.Find(`[name="keep_days"]`).AttrOr("value", "none"))
	require.Equal(t, "skip", edit.Find(`[name="overlap"] option[selected]`).AttrOr("value", ""))

	reader := handlerstest.Parse(t, d.Request(d.Reader, http.MethodGet, "/deployments/orders", nil))
	require.Zero(t, reader.Find(`[data-testid="schedule-edit-`+id+`"]`).Length(), "a read-only user gets no edit form")
	rec = d.Request(d.Reader, http.MethodPost, "/deployments/orders/schedules/"+id+"/edit", url.Values{"cron": {"* * * * *"}, "time_zone": {"UTC"}, "keep_last": {"1"}})
	require.Equal(t, http.StatusForbidden, rec.Code)
	require.Contains(t, rec.Body.String(), "This needs the operator role")
	require.Equal(t, "keeps the last 7, pruned by prune_backups", handlerstest.Text(handlerstest.Parse(t, d.Request(d.Reader, http.MethodGet, "/deployments/orders", nil)).Find(`[data-testid="schedule-retention"]`)), "nothing changed")

	rec = d.Request(d.Operator, http.MethodPost, "/deployments/orders/schedules/"+id+"/edit", url.Values{"cron": {"0 25 * * *"}, "time_zone": {"UTC"}, "keep_last": {"seven"}})
	require.Equal(t, http.StatusSeeOther, rec.Code, rec.Body.String())
	require.Contains(t, d.Flashes(t, d.Operator, rec)[0], `"seven" is not a whole number`)
	rec = d.Request(d.Operator, http.MethodPost, "/deployments/orders/schedules/"+id+"/edit", url.Values{"cron": {"0 25 * * *"}, "time_zone": {"UTC"}, "keep_last": {"7"}})
	require.Contains(t, d.Flashes(t, d.Operator, rec)[0], "not a cron expression", "a creation's field error")

	rec = d.Request(d.Operator, http.MethodPost, "/deployments/orders/schedules/"+id+"/edit", url.Values{"cron": {"30 4 * * *"}, "time_zone": {"Europe/Oslo"},
		"overlap": {"queue"}, "missed": {"skip"}, "keep_last": {"3"}, "keep_days": {"30"}})
	require.Equal(t, http.StatusSeeOther, rec.Code, rec.Body.String())
	require.Contains(t, d.Flashes(t, d.Operator, rec)[0], "Schedule #"+id+" is saved")
	after := handlerstest.Parse(t, d.Request(d.Reader, http.MethodGet, "/deployments/orders", nil)).Find(`[data-testid="schedule-` + id + `"]`)
	require.Contains(t, handlerstest.Text(after), "30 4 * * *")
	require.Contains(t, handlerstest.Text(after), "Europe/Oslo")
	require.Equal(t, "keeps the last 3 or 30 days, pruned by prune_backups", handlerstest.Text(after.Find(`[data-testid="schedule-retention"]`)))
	var audited []string
	rows, err := d.Pool.Query(context.Background(), `SELECT actor_name || ' ' || outcome FROM audit_entries WHERE action = 'deployment.schedule.update' ORDER BY id`)
	require.NoError(t, err)
	audited, err = pgx.CollectRows(rows, pgx.RowTo[string])
	require.NoError(t, err)
	require.Equal(t, "rita refused", audited[0], "audited like the other schedule changes")
	require.Equal(t, "olga allowed", audited[len(audited)-1])
}
