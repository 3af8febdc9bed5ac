package api

import (
	"context"

	oapi "github.com/styrmin/styrmin/api"
	"github.com/styrmin/styrmin/deployment"
	"github.com/styrmin/styrmin/handlers/httpx"
)

// RollbackDeployment queues a roll back to an earlier revision.
func (s *Server) RollbackDeployment(ctx context.Context, req oapi.RollbackDeploymentRequestObject) (oapi.RollbackDeploymentResponseObject, error) {
	accepted, err := s.queue(ctx, &deployment.Rollback{Name: req.Name, Revision: optional(req.Body).Revision, By: httpx.APIUser(ctx).Username})
	if err != nil {
		return nil, err
	}
	return oapi.RollbackDeployment202JSONResponse{TaskAcceptedJSONResponse: accepted}, nil
}

// ReconcileDeployment queues a re-apply of the release as it is.
func (s *Server) ReconcileDeployment(ctx context.Context, req oapi.ReconcileDeploymentRequestObject) (oapi.ReconcileDeploymentResponseObject, error) {
	accepted, err := s.queue(ctx, &deployment.Reconcile{Name: req.Name, By: httpx.APIUser(ctx).Username})
	if err != nil {
		return nil, err
	}
	return oapi.ReconcileDeployment202JSONResponse{TaskAcceptedJSONResponse: accepted}, nil
}

// StopDeployment queues a stop of the named components (all when none).
func (s *Server) StopDeployment(ctx context.Context, req oapi.StopDeploymentRequestObject) (oapi.StopDeploymentResponseObject, error) {
	components := optional(optional(req.Body).Components)
	accepted, err := s.queue(ctx, &deployment.Stop{Name: req.Name, Components: components, By: httpx.APIUser(ctx).Username})
	if err != nil {
		return nil, err
	}
	return oapi.StopDeployment202JSONResponse{TaskAcceptedJSONResponse: accepted}, nil
}

// StartDeployment queues a start of the named components (all when none).
func (s *Server) StartDeployment(ctx context.Context, req oapi.StartDeploymentRequestObject) (oapi.StartDeploymentResponseObject, error) {
	components := optional(optional(req.Body).Components)
	accepted, err := s.queue(ctx, &deployment.Start{Name: req.Name, Components: components, By: httpx.APIUser(ctx).Username})
	if err != nil {
		return nil, err
	}
	return oapi.StartDeployment202JSONResponse{TaskAcceptedJSONResponse: accepted}, nil
}

// DeleteDeployment queues the deletion of a deployment. The delete page's
// typed confirmation guards against a slip of the mouse; an API call names
// the deployment in its URL, which is confirmation enough.
func (s *Server) DeleteDeployment(ctx context.Context, req oapi.DeleteDeploymentRequestObject) (oapi.DeleteDeploymentResponseObject, error) {
	accepted, err := s.queue(ctx, &deployment.Delete{Name: req.Name, Confirm: req.Name,
		Prompts: jsonPrompts(optional(req.Body).Prompts), By: httpx.APIUser(ctx).Username})
	if err != nil {
		return nil, err
	}
	return oapi.DeleteDeployment202JSONResponse{TaskAcceptedJSONResponse: accepted}, nil
}
