package api

import (
	"context"

	oapi "github.com/styrmin/styrmin/api"
	"github.com/styrmin/styrmin/handlers/httpx"
)

// RollbackDeployment queues a roll back to an earlier revision.
func (s *Server) RollbackDeployment(ctx context.Context, req oapi.RollbackDeploymentRequestObject) (oapi.RollbackDeploymentResponseObject, error) {
	revision := optional(req.Body).Revision
	if revision < 1 {
		return nil, apiInvalid(map[string]string{"revision": "give the revision to roll back to, 1 or more"})
	}
	queued, err := s.Deployments.Rollback(ctx, req.Name, revision, httpx.APIUser(ctx).Username)
	if err != nil {
		return nil, err
	}
	accepted, err := s.taskAccepted(ctx, queued)
	if err != nil {
		return nil, err
	}
	return oapi.RollbackDeployment202JSONResponse{TaskAcceptedJSONResponse: accepted}, nil
}

// StopDeployment queues a stop of the named components (all when none).
func (s *Server) StopDeployment(ctx context.Context, req oapi.StopDeploymentRequestObject) (oapi.StopDeploymentResponseObject, error) {
	queued, err := s.Deployments.Stop(ctx, req.Name, optional(optional(req.Body).Components), httpx.APIUser(ctx).Username)
	if err != nil {
		return nil, err
	}
	accepted, err := s.taskAccepted(ctx, queued)
	if err != nil {
		return nil, err
	}
	return oapi.StopDeployment202JSONResponse{TaskAcceptedJSONResponse: accepted}, nil
}

// StartDeployment queues a start of the named components (all when none).
func (s *Server) StartDeployment(ctx context.Context, req oapi.StartDeploymentRequestObject) (oapi.StartDeploymentResponseObject, error) {
	queued, err := s.Deployments.Start(ctx, req.Name, optional(optional(req.Body).Components), httpx.APIUser(ctx).Username)
	if err != nil {
		return nil, err
	}
	accepted, err := s.taskAccepted(ctx, queued)
	if err != nil {
		return nil, err
	}
	return oapi.StartDeployment202JSONResponse{TaskAcceptedJSONResponse: accepted}, nil
}

// DeleteDeployment queues the deletion of a deployment. The delete page's
// typed confirmation guards against a slip of the mouse; an API call names
// the deployment in its URL, which is confirmation enough.
func (s *Server) DeleteDeployment(ctx context.Context, req oapi.DeleteDeploymentRequestObject) (oapi.DeleteDeploymentResponseObject, error) {
	form, err := s.Deployments.DeleteForm(ctx, req.Name)
	if err != nil {
		return nil, err
	}
	fields := map[string]string{}
	prompts := hookPromptForm(form.HookActions, form.Prompts, optional(req.Body).Prompts, fields)
	if len(fields) > 0 {
		return nil, apiInvalid(fields)
	}
	queued, err := s.Deployments.Delete(ctx, req.Name, req.Name, prompts, httpx.APIUser(ctx).Username)
	if err != nil {
		return nil, err
	}
	accepted, err := s.taskAccepted(ctx, queued)
	if err != nil {
		return nil, err
	}
	return oapi.DeleteDeployment202JSONResponse{TaskAcceptedJSONResponse: accepted}, nil
}
