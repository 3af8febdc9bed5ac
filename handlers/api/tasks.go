package handlers

import (
	"context"
	"strconv"

	"github.com/styrmin/styrmin/api"
	"github.com/styrmin/styrmin/deployment"
	"github.com/styrmin/styrmin/executor"
)

// taskCursor is where the next page of tasks starts: before this task id.
type taskCursor struct {
	Before int64 `json:"before"`
}

// ListTasks lists the top-level tasks of every deployment, newest first, a
// page at a time; linked tasks are under the steps that started them.
func (s *apiServer) ListTasks(ctx context.Context, req api.ListTasksRequestObject) (api.ListTasksResponseObject, error) {
	var from taskCursor
	if err := decodeCursor(req.Params.Cursor, &from); err != nil {
		return nil, err
	}
	p := req.Params
	f := deployment.TaskFilter{Before: from.Before, PageSize: pageLimit(p.Limit)}
	if p.Deployment != nil {
		f.Deployment = *p.Deployment
	}
	if p.Status != nil {
		f.Status = string(*p.Status)
	}
	if p.Kind != nil {
		f.Kind = string(*p.Kind)
	}
	tasks, next, err := s.d.Deployments.FindTasks(ctx, f)
	if err != nil {
		return nil, err
	}
	out := api.ListTasks200JSONResponse{Items: make([]api.Task, len(tasks))}
	for i := range tasks {
		out.Items[i] = apiTaskOf(&tasks[i].Task, tasks[i].Deployment)
	}
	if next != 0 {
		out.NextCursor = encodeCursor(taskCursor{Before: next})
	}
	return out, nil
}

// GetTask shows a task, top-level or linked, with its steps.
func (s *apiServer) GetTask(ctx context.Context, req api.GetTaskRequestObject) (api.GetTaskResponseObject, error) {
	t, err := s.d.Deployments.TaskByID(ctx, req.Id)
	if err != nil {
		return nil, err
	}
	return api.GetTask200JSONResponse(apiTaskOf(&t.Task, t.Deployment)), nil
}

// apiTaskPath is a task's address in the API.
func apiTaskPath(id int64) string {
	return apiPrefix + "/tasks/" + strconv.FormatInt(id, 10)
}

// apiTaskOf is a task of the named deployment as the API shows it, with its
// steps and, under them, the tasks they started (of the same deployment).
func apiTaskOf(t *deployment.Task, deploymentName string) api.Task {
	out := api.Task{
		Id: t.ID, Deployment: deploymentName, ParentStepId: t.ParentStepID,
		Kind: api.TaskKind(t.Kind), Status: api.TaskStatus(t.Status), Message: t.Message,
		Inputs: t.Inputs, By: t.By, CreatedAt: t.CreatedAt, StartedAt: t.StartedAt, EndedAt: t.EndedAt,
		Ended: t.Ended(), Steps: make([]api.Step, len(t.Steps)),
	}
	if out.Inputs == nil {
		out.Inputs = map[string]any{}
	}
	if len(t.Result) > 0 && string(t.Result) != "null" {
		out.Result = t.Result
	}
	if t.Status == executor.TaskQueued && t.ParentStepID == nil {
		n := t.QueuePosition
		out.QueuePosition = &n
	}
	for i := range t.Steps {
		out.Steps[i] = apiStepOf(&t.Steps[i], deploymentName)
	}
	return out
}

// hookDetail are the JSON keys of a hook step's detail (deployment.HookDetail)
// that the API shows as fields of their own (apiHookStep); the rest stays in
// detail.
var hookDetail = map[string]bool{"action": true, "mode": true, "error": true, "job": true, "job_tail": true, "job_tail_lines": true}

// apiStepOf is a task's step as the API shows it.
func apiStepOf(s *deployment.Step, deploymentName string) api.Step {
	out := api.Step{
		Id: s.ID, Position: s.Position, Kind: string(s.Kind), Title: s.Title, Status: s.Status, Message: s.Message,
		StartedAt: s.StartedAt, EndedAt: s.EndedAt,
		Logs: make([]api.LogLine, len(s.Logs)), Tasks: make([]api.Task, len(s.Tasks)),
	}
	rest := map[string]any{}
	for k, v := range s.Detail {
		if s.Hook == nil || !hookDetail[k] {
			rest[k] = v
		}
	}
	if len(rest) > 0 {
		out.Detail = &rest
	}
	if s.Hook != nil {
		apiHookStep(&out, s.Hook)
	}
	for i, l := range s.Logs {
		out.Logs[i] = api.LogLine{Level: l.Level, Message: l.Message, At: l.At}
	}
	for i := range s.Tasks {
		out.Tasks[i] = apiTaskOf(&s.Tasks[i], deploymentName)
	}
	return out
}

// apiHookStep sets the fields of a hook step that its detail gives.
func apiHookStep(out *api.Step, h *deployment.HookDetail) {
	out.Action, out.Mode, out.Error = nonEmpty(h.Action), nonEmpty(h.Mode), nonEmpty(h.Error)
	if j := h.JobDetail; j != nil {
		lines := j.JobTailLines
		out.Job, out.JobTail, out.JobTailLines = nonEmpty(j.Job), nonEmpty(j.JobTail), &lines
	}
	// An action may replace several ended Jobs; deleted_job is the last one
	// and detail.deleted_jobs keeps them all.
	if n := len(h.DeletedJobs); n > 0 {
		out.DeletedJob = &h.DeletedJobs[n-1]
	}
}

// nonEmpty is s, nil when it is empty.
func nonEmpty(s string) *string {
	if s == "" {
		return nil
	}
	return &s
}
