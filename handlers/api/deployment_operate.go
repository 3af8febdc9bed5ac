package handlers

import (
	"context"

	"github.com/styrmin/styrmin/api"
)

// RollbackDeployment queues a roll back to an earlier revision.
func (s *apiServer) RollbackDeployment(ctx context.Context, req api.RollbackDeploymentRequestObject) (api.RollbackDeploymentResponseObject, error) {
	revision := optional(req.Body).Revision
	if revision < 1 {
		return nil, apiInvalid(map[string]string{"revision": "give the revision to roll back to, 1 or more"})
	}
	queued, err := s.d.Deployments.Rollback(ctx, req.Name, revision, apiUser(ctx).Username)
	if err != nil {
		return nil, err
	}
	accepted, err := s.taskAccepted(ctx, queued)
	if err != nil {
		return nil, err
	}
	return api.RollbackDeployment202JSONResponse{TaskAcceptedJSONResponse: accepted}, nil
}

// StopDeployment queues a stop of the named components (all when none).
func (s *apiServer) StopDeployment(ctx context.Context, req api.StopDeploymentRequestObject) (api.StopDeploymentResponseObject, error) {
	queued, err := s.d.Deployments.Stop(ctx, req.Name, optional(optional(req.Body).Components), apiUser(ctx).Username)
	if err != nil {
		return nil, err
	}
	accepted, err := s.taskAccepted(ctx, queued)
	if err != nil {
		return nil, err
	}
	return api.StopDeployment202JSONResponse{TaskAcceptedJSONResponse: accepted}, nil
}

// StartDeployment queues a start of the named components (all when none).
func (s *apiServer) StartDeployment(ctx context.Context, req api.StartDeploymentRequestObject) (api.StartDeploymentResponseObject, error) {
	queued, err := s.d.Deployments.Start(ctx, req.Name, optional(optional(req.Body).Components), apiUser(ctx).Username)
	if err != nil {
		return nil, err
	}
	accepted, err := s.taskAccepted(ctx, queued)
	if err != nil {
		return nil, err
	}
	return api.StartDeployment202JSONResponse{TaskAcceptedJSONResponse: accepted}, nil
}

// DeleteDeployment queues the deletion of a deployment. The delete page's
// typed confirmation guards against a slip of the mouse; an API call names
// the deployment in its URL, which is confirmation enough.
func (s *apiServer) DeleteDeployment(ctx context.Context, req api.DeleteDeploymentRequestObject) (api.DeleteDeploymentResponseObject, error) {
	form, err := s.d.Deployments.DeleteForm(ctx, req.Name)
	if err != nil {
		return nil, err
	}
	fields := map[string]string{}
	prompts := hookPromptForm(form.HookActions, form.Prompts, optional(req.Body).Prompts, fields)
	if len(fields) > 0 {
		return nil, apiInvalid(fields)
	}
	queued, err := s.d.Deployments.Delete(ctx, req.Name, req.Name, prompts, apiUser(ctx).Username)
	if err != nil {
		return nil, err
	}
	accepted, err := s.taskAccepted(ctx, queued)
	if err != nil {
		return nil, err
	}
	return api.DeleteDeployment202JSONResponse{TaskAcceptedJSONResponse: accepted}, nil
}
