package api

import (
	"context"
	"fmt"
	"reflect"
	"strconv"
	"strings"

	oapi "github.com/styrmin/styrmin/api"
	"github.com/styrmin/styrmin/deployment"
	"github.com/styrmin/styrmin/executor"
	"github.com/styrmin/styrmin/handlers/httpx"
)

// taskCursor is where the next page of tasks starts: before this task id.
type taskCursor struct {
	Before int64 `json:"before"`
}

// ListTasks lists the top-level tasks of every deployment the caller may
// see (a member: their teams' deployments), newest first, a page at a time;
// linked tasks are under the steps that started them.
func (s *Server) ListTasks(ctx context.Context, req oapi.ListTasksRequestObject) (oapi.ListTasksResponseObject, error) {
	var from taskCursor
	if err := decodeCursor(req.Params.Cursor, &from); err != nil {
		return nil, err
	}
	p := req.Params
	f := deployment.TaskFilter{Before: from.Before, PageSize: pageLimit(p.Limit)}
	var err error
	if f.Teams, err = s.Teams.Visible(ctx, httpx.APIUser(ctx)); err != nil {
		return nil, err
	}
	if p.Deployment != nil {
		f.Deployment = *p.Deployment
	}
	if p.Status != nil {
		f.Status = executor.TaskStatus(*p.Status)
	}
	if p.Kind != nil {
		f.Kind = string(*p.Kind)
	}
	list, err := s.Deployments.TaskList(ctx, f)
	if err != nil {
		return nil, err
	}
	out := oapi.ListTasks200JSONResponse{Items: make([]oapi.Task, len(list.Tasks))}
	for i, t := range list.Tasks {
		if out.Items[i], err = apiTaskOf(&t.Task, t.Deployment); err != nil {
			return nil, err
		}
	}
	if list.Next != 0 {
		out.NextCursor = encodeCursor(taskCursor{Before: list.Next})
	}
	return out, nil
}

// GetTask shows a task, top-level or linked, with its steps.
func (s *Server) GetTask(ctx context.Context, req oapi.GetTaskRequestObject) (oapi.GetTaskResponseObject, error) {
	t, err := s.Deployments.TaskByID(ctx, req.Id)
	if err != nil {
		return nil, err
	}
	out, err := apiTaskOf(&t.Task, t.Deployment)
	return oapi.GetTask200JSONResponse(out), err
}

// apiTaskPath is a task's address in the API.
func apiTaskPath(id int64) string {
	return Prefix + "/tasks/" + strconv.FormatInt(id, 10)
}

// apiTaskOf is a task of the named deployment as the API shows it, with its
// steps and, under them, the tasks they started (of the same deployment).
func apiTaskOf(t *deployment.Task, deploymentName string) (oapi.Task, error) {
	inputs, err := apiInputsOf(t.Kind, t.Inputs)
	if err != nil {
		return oapi.Task{}, err
	}
	out := oapi.Task{
		Id: t.ID, Deployment: deploymentName, ParentStepId: t.ParentStepID,
		Kind: oapi.TaskKind(t.Kind), Status: oapi.TaskStatus(t.Status), Message: t.Message,
		Inputs: inputs, InputsUnread: nonEmpty(t.InputsUnread), By: t.By, CreatedAt: t.CreatedAt, StartedAt: t.StartedAt, EndedAt: t.EndedAt,
		Ended: t.Ended(), Steps: make([]oapi.Step, len(t.Steps)),
	}
	if len(t.Result) > 0 && string(t.Result) != "null" {
		out.Result = t.Result
	}
	if t.Status == executor.TaskQueued && t.ParentStepID == nil {
		n := t.QueuePosition
		out.QueuePosition = &n
	}
	for i := range t.Steps {
		if out.Steps[i], err = apiStepOf(&t.Steps[i], deploymentName); err != nil {
			return oapi.Task{}, err
		}
	}
	return out, nil
}

// hookFields are the JSON keys of a hook step's detail that the API shows as
// fields of their own (apiHookStep), read from the tags of the detail types;
// the rest stays in detail.
var hookFields = map[string]bool{
	jsonKey[deployment.HookDetail]("Action"): true, jsonKey[deployment.HookDetail]("Mode"): true,
	jsonKey[deployment.HookDetail]("Error"): true, jsonKey[deployment.JobDetail]("Job"): true,
	jsonKey[deployment.JobDetail]("JobTail"): true, jsonKey[deployment.JobDetail]("JobTailLines"): true,
}

// jsonKey is the JSON key of the field of T named field; a field T lacks
// panics when the package starts.
func jsonKey[T any](field string) string {
	f, ok := reflect.TypeFor[T]().FieldByName(field)
	if !ok {
		panic(fmt.Sprintf("api: %s has no field %s", reflect.TypeFor[T](), field))
	}
	key, _, _ := strings.Cut(f.Tag.Get("json"), ",")
	return key
}

// apiStepOf is a task's step as the API shows it.
func apiStepOf(s *deployment.Step, deploymentName string) (oapi.Step, error) {
	out := oapi.Step{
		Id: s.ID, Position: s.Position, Kind: string(s.Kind), Title: s.Title, Status: string(s.Status), Message: s.Message,
		StartedAt: s.StartedAt, EndedAt: s.EndedAt,
		Logs: make([]oapi.LogLine, len(s.Logs)), Tasks: make([]oapi.Task, len(s.Tasks)),
	}
	rest := map[string]any{}
	for k, v := range s.Detail {
		if s.Hook == nil || !hookFields[k] {
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
		out.Logs[i] = oapi.LogLine{Level: l.Level, Message: l.Message, At: l.At}
	}
	for i := range s.Tasks {
		var err error
		if out.Tasks[i], err = apiTaskOf(&s.Tasks[i], deploymentName); err != nil {
			return oapi.Step{}, err
		}
	}
	return out, nil
}

// apiHookStep sets the fields of a hook step that its detail gives.
func apiHookStep(out *oapi.Step, h *deployment.HookDetail) {
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
