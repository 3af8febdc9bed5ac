package api

import (
	"context"

	oapi "github.com/styrmin/styrmin/api"
	"github.com/styrmin/styrmin/deployment"
)

// The API's changes of deployments: each builds its deployment operation
// from the request's JSON (parameter and prompt values as JSONInput and
// JSONPrompts), queues it and answers 202 with the task it queued
// (taskAccepted). The operation's *deployment.InvalidError becomes the
// problem's fields, keyed by Field.FormKey (problem).

// queue queues op and answers with its task.
func (s *Server) queue(ctx context.Context, op deployment.Operation) (oapi.TaskAcceptedJSONResponse, error) {
	queued, err := s.Deployments.Queue(ctx, op)
	if err != nil {
		return oapi.TaskAcceptedJSONResponse{}, err
	}
	return s.taskAccepted(ctx, queued)
}

// taskAccepted is the answer to a change queued as a task: the task as it
// is now and its URL, which the Location header repeats.
func (s *Server) taskAccepted(ctx context.Context, q *deployment.Queued) (oapi.TaskAcceptedJSONResponse, error) {
	t, err := s.Deployments.Task(ctx, q.Deployment, q.TaskID)
	if err != nil {
		return oapi.TaskAcceptedJSONResponse{}, err
	}
	task, err := apiTaskOf(t, q.Deployment)
	if err != nil {
		return oapi.TaskAcceptedJSONResponse{}, err
	}
	url := apiTaskPath(q.TaskID)
	return oapi.TaskAcceptedJSONResponse{
		Body:    oapi.TaskAccepted{Task: task, Url: url},
		Headers: oapi.TaskAcceptedResponseHeaders{Location: &url},
	}, nil
}

// jsonParameters are a request's parameter values (nil: none given).
func jsonParameters(values *oapi.ParameterValues) deployment.JSONInput {
	return deployment.JSONInput(optional(values))
}

// jsonPrompts are a request's hook action prompt values (nil: none given).
func jsonPrompts(values *oapi.PromptValues) deployment.JSONPrompts {
	return deployment.JSONPrompts(optional(values))
}

// optional is the value p points to, or the zero value for nil.
func optional[T any](p *T) T {
	var zero T
	if p == nil {
		return zero
	}
	return *p
}
