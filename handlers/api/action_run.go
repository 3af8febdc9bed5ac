package api

import (
	"context"

	"github.com/styrmin/styrmin"
	oapi "github.com/styrmin/styrmin/api"
	"github.com/styrmin/styrmin/deployment"
	"github.com/styrmin/styrmin/drivers"
	"github.com/styrmin/styrmin/handlers/httpx"
)

// RunAction queues a run of a manual action of the deployment's driver with
// the request's prompt values over the prompts' defaults. Bad prompts are
// keyed prompt.<action>.<prompt>, as hook actions' prompts are.
func (s *Server) RunAction(ctx context.Context, req oapi.RunActionRequestObject) (oapi.RunActionResponseObject, error) {
	prompts, err := s.manualPrompts(ctx, req.Name, req.Action)
	if err != nil {
		return nil, err
	}
	var form map[string]string
	field := httpx.PromptPrefix + "." + req.Action + "."
	if prompts != nil {
		text, bad := deployment.JSONForm(prompts, deployment.FormText(prompts, nil), optional(optional(req.Body).Prompts))
		if len(bad) > 0 {
			fields := map[string]string{}
			for name, msg := range bad {
				fields[field+name] = msg
			}
			return nil, apiInvalid(fields)
		}
		form = text
	}
	// Without prompts to read (no such manual action), the service refuses the run.
	queued, err := s.Deployments.RunAction(ctx, req.Name, req.Action, form, httpx.APIUser(ctx).Username)
	if err != nil {
		return nil, rekeyed(err, httpx.ParamPrefix+".", field)
	}
	accepted, err := s.taskAccepted(ctx, queued)
	if err != nil {
		return nil, err
	}
	return oapi.RunAction202JSONResponse{TaskAcceptedJSONResponse: accepted}, nil
}

// manualPrompts are the prompts of the deployment's manual action; nil when
// its driver version has no such manual action.
func (s *Server) manualPrompts(ctx context.Context, name, action string) ([]drivers.Parameter, error) {
	d, err := s.Deployments.Get(ctx, name)
	if err != nil {
		return nil, err
	}
	v, err := s.Drivers.Get(ctx, d.Driver, d.DriverVersion)
	if styrmin.ErrorCode(err) == styrmin.ENOTFOUND {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	a := v.Driver.Action(action)
	if a == nil || a.Hook != drivers.HookManual {
		return nil, nil
	}
	return a.Prompts, nil
}
