package api

import (
	"context"

	oapi "github.com/styrmin/styrmin/api"
	"github.com/styrmin/styrmin/handlers/httpx"
)

// CancelTask cancels a queued task, or asks a running one to stop at its
// next step, and answers with the task after the request.
func (s *Server) CancelTask(ctx context.Context, req oapi.CancelTaskRequestObject) (oapi.CancelTaskResponseObject, error) {
	t, err := s.Deployments.TaskByID(ctx, req.Id)
	if err != nil {
		return nil, err
	}
	if err := s.Deployments.CancelTask(ctx, t.Deployment, req.Id, httpx.APIUser(ctx).Username); err != nil {
		return nil, err
	}
	if t, err = s.Deployments.TaskByID(ctx, req.Id); err != nil {
		return nil, err
	}
	out, err := apiTaskOf(&t.Task, t.Deployment)
	return oapi.CancelTask200JSONResponse(out), err
}
