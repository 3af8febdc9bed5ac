package api

import (
	"context"
	"time"

	oapi "github.com/styrmin/styrmin/api"
	"github.com/styrmin/styrmin/deployment"
	"github.com/styrmin/styrmin/handlers/httpx"
	"github.com/styrmin/styrmin/schedule"
)

// Schedules is what the API needs of the schedules (schedule.Service).
type Schedules interface {
	List(ctx context.Context, name string) ([]schedule.Schedule, error)
	Get(ctx context.Context, name string, id int64) (schedule.Schedule, error)
	Create(ctx context.Context, c schedule.Create) (int64, error)
	Pause(ctx context.Context, name string, id int64) error
	Resume(ctx context.Context, name string, id int64) error
	Delete(ctx context.Context, name string, id int64) error
	Update(ctx context.Context, name string, id int64, u schedule.Update) error
}

var _ Schedules = (*schedule.Service)(nil)

// ListSchedules lists the deployment's schedules, secret prompts left out.
func (s *Server) ListSchedules(ctx context.Context, req oapi.ListSchedulesRequestObject) (oapi.ListSchedulesResponseObject, error) {
	list, err := s.Schedules.List(ctx, req.Name)
	if err != nil {
		return nil, err
	}
	out := make(oapi.ListSchedules200JSONResponse, len(list))
	for i, sc := range list {
		out[i] = toAPISchedule(sc)
	}
	return out, nil
}

// CreateSchedule schedules a manual action by the caller.
func (s *Server) CreateSchedule(ctx context.Context, req oapi.CreateScheduleRequestObject) (oapi.CreateScheduleResponseObject, error) {
	b := optional(req.Body)
	id, err := s.Schedules.Create(ctx, schedule.Create{Deployment: req.Name, Action: b.Action, Cron: b.Cron, Zone: b.TimeZone,
		Overlap: schedule.Overlap(optional(b.Overlap)), Missed: schedule.Missed(optional(b.Missed)),
		Prompts: deployment.JSONInput(optional(b.Prompts)), Author: httpx.APIUser(ctx).ID,
		Retention: schedule.Retention{KeepLast: optional(b.KeepLast), KeepDays: optional(b.KeepDays)}})
	if err != nil {
		return nil, err
	}
	sc, err := s.Schedules.Get(ctx, req.Name, id)
	if err != nil {
		return nil, err
	}
	return oapi.CreateSchedule201JSONResponse(toAPISchedule(sc)), nil
}

// UpdateSchedule edits a schedule: the fields given replace its own.
func (s *Server) UpdateSchedule(ctx context.Context, req oapi.UpdateScheduleRequestObject) (oapi.UpdateScheduleResponseObject, error) {
	b := optional(req.Body)
	err := s.Schedules.Update(ctx, req.Name, req.Id, schedule.Update{Cron: b.Cron, Zone: b.TimeZone,
		Overlap: (*schedule.Overlap)(b.Overlap), Missed: (*schedule.Missed)(b.Missed), KeepLast: b.KeepLast, KeepDays: b.KeepDays})
	if err != nil {
		return nil, err
	}
	sc, err := s.Schedules.Get(ctx, req.Name, req.Id)
	if err != nil {
		return nil, err
	}
	return oapi.UpdateSchedule200JSONResponse(toAPISchedule(sc)), nil
}

// PauseSchedule pauses a schedule.
func (s *Server) PauseSchedule(ctx context.Context, req oapi.PauseScheduleRequestObject) (oapi.PauseScheduleResponseObject, error) {
	return oapi.PauseSchedule204Response{}, s.Schedules.Pause(ctx, req.Name, req.Id)
}

// ResumeSchedule resumes a schedule.
func (s *Server) ResumeSchedule(ctx context.Context, req oapi.ResumeScheduleRequestObject) (oapi.ResumeScheduleResponseObject, error) {
	return oapi.ResumeSchedule204Response{}, s.Schedules.Resume(ctx, req.Name, req.Id)
}

// DeleteSchedule deletes a schedule.
func (s *Server) DeleteSchedule(ctx context.Context, req oapi.DeleteScheduleRequestObject) (oapi.DeleteScheduleResponseObject, error) {
	return oapi.DeleteSchedule204Response{}, s.Schedules.Delete(ctx, req.Name, req.Id)
}

// toAPISchedule is a schedule as the API shows it.
func toAPISchedule(sc schedule.Schedule) oapi.Schedule {
	out := oapi.Schedule{Id: sc.ID, Action: sc.Action, Cron: sc.Cron, TimeZone: sc.Zone, Overlap: oapi.ScheduleOverlap(sc.Overlap),
		Missed: oapi.ScheduleMissed(sc.Missed), Prompts: sc.Prompts, Paused: sc.Paused, NextRuns: sc.Next, LastSlot: sc.LastSlot,
		LastOutcome: sc.LastOutcome, Author: sc.Author, CreatedAt: sc.CreatedAt}
	if sc.LastTaskID != 0 {
		out.LastTask = &sc.LastTaskID
	}
	if sc.Retention.KeepLast != 0 {
		out.KeepLast = &sc.Retention.KeepLast
	}
	if sc.Retention.KeepDays != 0 {
		out.KeepDays = &sc.Retention.KeepDays
	}
	if sc.PruneAction != "" {
		out.PruneAction, out.LastPruneOutcome = &sc.PruneAction, &sc.LastPruneOutcome
	}
	if sc.LastPruneTaskID != 0 {
		out.LastPruneTask = &sc.LastPruneTaskID
	}
	if out.NextRuns == nil {
		out.NextRuns = []time.Time{}
	}
	return out
}
