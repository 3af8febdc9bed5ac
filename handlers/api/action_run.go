package api

import (
	"context"

	oapi "github.com/styrmin/styrmin/api"
	"github.com/styrmin/styrmin/deployment"
	"github.com/styrmin/styrmin/handlers/httpx"
)

// RunAction queues a run of a manual action of the deployment's driver with
// the request's prompt values over the prompts' defaults. Bad prompts are
// keyed prompt.<action>.<prompt>, as hook actions' prompts are.
func (s *Server) RunAction(ctx context.Context, req oapi.RunActionRequestObject) (oapi.RunActionResponseObject, error) {
	prompts := deployment.JSONInput(optional(optional(req.Body).Prompts))
	accepted, err := s.queue(ctx, &deployment.RunAction{Name: req.Name, Action: req.Action, Prompts: prompts, By: httpx.APIUser(ctx).Username})
	if err != nil {
		return nil, err
	}
	return oapi.RunAction202JSONResponse{TaskAcceptedJSONResponse: accepted}, nil
}
