package handlers

import (
	"context"

	"github.com/styrmin/styrmin/api"
)

// CancelTask cancels a queued task, or asks a running one to stop at its
// next step, and answers with the task after the request.
func (s *apiServer) CancelTask(ctx context.Context, req api.CancelTaskRequestObject) (api.CancelTaskResponseObject, error) {
	t, err := s.d.Deployments.TaskByID(ctx, req.Id)
	if err != nil {
		return nil, err
	}
	if err := s.d.Deployments.CancelTask(ctx, t.Deployment, req.Id, apiUser(ctx).Username); err != nil {
		return nil, err
	}
	if t, err = s.d.Deployments.TaskByID(ctx, req.Id); err != nil {
		return nil, err
	}
	return api.CancelTask200JSONResponse(apiTaskOf(&t.Task, t.Deployment)), nil
}
