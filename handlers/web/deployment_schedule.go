package web

import (
	"context"
	"fmt"
	"strconv"
	"strings"

	"github.com/labstack/echo/v4"

	"github.com/styrmin/styrmin"
	"github.com/styrmin/styrmin/deployment"
	"github.com/styrmin/styrmin/handlers/httpx"
	"github.com/styrmin/styrmin/schedule"
	"github.com/styrmin/styrmin/views"
)

// Schedules is what the pages need of the schedules (schedule.Service).
type Schedules interface {
	List(ctx context.Context, name string) ([]schedule.Schedule, error)
	Create(ctx context.Context, c schedule.Create) (int64, error)
	Pause(ctx context.Context, name string, id int64) error
	Resume(ctx context.Context, name string, id int64) error
	Delete(ctx context.Context, name string, id int64) error
	Update(ctx context.Context, name string, id int64, u schedule.Update) error
}

var _ Schedules = (*schedule.Service)(nil)

// ScheduleCreate schedules a manual action from its schedule form (action,
// cron, time_zone, overlap, missed and its prompts, prompt.<action>.<name>);
// refused values come back as a message on the deployment page.
func ScheduleCreate(svc Schedules) echo.HandlerFunc {
	return func(c echo.Context) error {
		name := c.Param("name")
		form, err := c.FormParams()
		if err != nil {
			return err
		}
		action := form.Get("action")
		retention, err := formRetention(form.Get(schedule.FieldKeepLast), form.Get(schedule.FieldKeepDays))
		if err != nil {
			return backToDeployment(c, name, err)
		}
		id, err := svc.Create(c.Request().Context(), schedule.Create{Deployment: name, Action: action,
			Cron: form.Get("cron"), Zone: form.Get("time_zone"),
			Overlap: schedule.Overlap(form.Get("overlap")), Missed: schedule.Missed(form.Get("missed")),
			Prompts: deployment.FormInput(readEntered(form).Prompts[action]), Author: httpx.CurrentUser(c).ID, Retention: retention})
		if err != nil {
			return backToDeployment(c, name, err)
		}
		flash(c, views.FlashSuccess, fmt.Sprintf("Action %s is scheduled (schedule #%d).", action, id))
		return redirect(c, deploymentPath(name))
	}
}

// ScheduleEdit edits a schedule from its edit form (cron, time_zone,
// overlap, missed, and keep_last and keep_days for an action that declares
// artefacts: left out, it keeps everything); refused values come back as a
// message on the deployment page, as the schedule form's do.
func ScheduleEdit(svc Schedules) echo.HandlerFunc {
	return func(c echo.Context) error {
		name := c.Param("name")
		id, err := scheduleID(c)
		if err != nil {
			return err
		}
		form, err := c.FormParams()
		if err != nil {
			return err
		}
		retention, err := formRetention(form.Get(schedule.FieldKeepLast), form.Get(schedule.FieldKeepDays))
		if err != nil {
			return backToDeployment(c, name, err)
		}
		overlap, missed := schedule.Overlap(form.Get("overlap")), schedule.Missed(form.Get("missed"))
		cron, zone := form.Get("cron"), form.Get("time_zone")
		err = svc.Update(c.Request().Context(), name, id, schedule.Update{Cron: &cron, Zone: &zone, Overlap: &overlap, Missed: &missed,
			KeepLast: &retention.KeepLast, KeepDays: &retention.KeepDays})
		if err != nil {
			return backToDeployment(c, name, err)
		}
		flash(c, views.FlashSuccess, fmt.Sprintf("Schedule #%d is saved.", id))
		return redirect(c, deploymentPath(name))
	}
}

// scheduleID is the schedule the address names; not a number is ENOTFOUND.
func scheduleID(c echo.Context) (int64, error) {
	id, err := strconv.ParseInt(c.Param("id"), 10, 64)
	if err != nil {
		return 0, styrmin.Errorf(styrmin.ENOTFOUND, "There is no schedule %q.", c.Param("id"))
	}
	return id, nil
}

// formRetention reads a schedule form's retention fields: whole numbers,
// empty for none.
func formRetention(keepLast, keepDays string) (schedule.Retention, error) {
	fields := map[string]string{}
	read := func(key, text string) int {
		if strings.TrimSpace(text) == "" {
			return 0
		}
		n, err := strconv.Atoi(strings.TrimSpace(text))
		if err != nil {
			fields[key] = fmt.Sprintf("%q is not a whole number", text)
		}
		return n
	}
	r := schedule.Retention{KeepLast: read(schedule.FieldKeepLast, keepLast), KeepDays: read(schedule.FieldKeepDays, keepDays)}
	if len(fields) > 0 {
		return r, &styrmin.Error{Code: styrmin.EINVALID, Message: deployment.InvalidFields, Fields: fields}
	}
	return r, nil
}

// ScheduleChange pauses, resumes or deletes a schedule: change is that
// method of Schedules (Schedules.Pause), done what the flash says it is.
func ScheduleChange(svc Schedules, change func(Schedules, context.Context, string, int64) error, done string) echo.HandlerFunc {
	return func(c echo.Context) error {
		name := c.Param("name")
		id, err := scheduleID(c)
		if err != nil {
			return err
		}
		if err := change(svc, c.Request().Context(), name, id); err != nil {
			return backToDeployment(c, name, err)
		}
		flash(c, views.FlashSuccess, fmt.Sprintf("Schedule #%d is %s.", id, done))
		return redirect(c, deploymentPath(name))
	}
}

// scheduleRows are a deployment's schedules as its page lists them.
func scheduleRows(list []schedule.Schedule) []views.ScheduleRow {
	out := make([]views.ScheduleRow, len(list))
	for i, s := range list {
		out[i] = views.ScheduleRow{ID: s.ID, Action: s.Action, Cron: s.Cron, Zone: s.Zone, Overlap: string(s.Overlap),
			Missed: string(s.Missed), Paused: s.Paused, Next: s.Next, LastOutcome: s.LastOutcome, LastTaskID: s.LastTaskID, Author: s.Author,
			Keeps: s.Retention.String(), KeepLast: s.Retention.KeepLast, KeepDays: s.Retention.KeepDays, PruneAction: s.PruneAction, LastPruneOutcome: s.LastPruneOutcome, LastPruneTaskID: s.LastPruneTaskID}
	}
	return out
}
