package handlers

import (
	"github.com/styrmin/styrmin/api"
	"github.com/styrmin/styrmin/deployment"
)

// apiTaskOf is a task as the API shows it. TEMPORARY: the read operations
// (branch h-api-read) bring the full conversion (hook step fields, linked
// tasks, result); this file goes when they are merged.
func apiTaskOf(t *deployment.Task, deploymentName string) api.Task {
	out := api.Task{
		Id: t.ID, Deployment: deploymentName, Kind: api.TaskKind(t.Kind), Status: api.TaskStatus(t.Status),
		Message: t.Message, Inputs: t.Inputs, By: t.By, CreatedAt: t.CreatedAt,
		StartedAt: t.StartedAt, EndedAt: t.EndedAt, Ended: t.Ended(), Steps: []api.Step{},
	}
	if out.Inputs == nil {
		out.Inputs = map[string]any{}
	}
	if t.QueuePosition > 0 {
		out.QueuePosition = &t.QueuePosition
	}
	if len(t.Result) > 0 {
		out.Result = t.Result
	}
	for _, st := range t.Steps {
		out.Steps = append(out.Steps, api.Step{
			Id: st.ID, Position: st.Position, Kind: st.Kind, Title: st.Title, Status: st.Status, Message: st.Message,
			StartedAt: st.StartedAt, EndedAt: st.EndedAt, Logs: []api.LogLine{}, Tasks: []api.Task{},
		})
	}
	return out
}
