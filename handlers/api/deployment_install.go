package api

import (
	"context"

	"github.com/styrmin/styrmin"
	oapi "github.com/styrmin/styrmin/api"
	"github.com/styrmin/styrmin/deployment"
	"github.com/styrmin/styrmin/handlers/httpx"
)

// InstallDeployment installs a driver version as a new deployment: the
// install form's defaults, with the request's values written over them.
func (s *Server) InstallDeployment(ctx context.Context, req oapi.InstallDeploymentRequestObject) (oapi.InstallDeploymentResponseObject, error) {
	in := optional(req.Body)
	install := deployment.InstallRequest{
		Driver: in.Driver, DriverVersion: in.DriverVersion, Name: in.Name,
		Namespace: optional(in.Namespace), AppVersion: optional(in.AppVersion), By: httpx.APIUser(ctx).Username,
	}
	form, err := s.Deployments.InstallForm(ctx, in.Driver, in.DriverVersion)
	switch {
	case styrmin.ErrorCode(err) == styrmin.ENOTFOUND:
		// No such driver version: Install refuses it, naming the field.
	case err != nil:
		return nil, err
	default:
		if install.AppVersion == "" {
			install.AppVersion = form.AppVersion
		}
		fields := map[string]string{}
		install.Parameters = paramForm(form.Driver.Spec.Parameters, form.Values, in.Parameters, fields)
		install.Prompts = hookPromptForm(form.HookActions, form.Prompts, in.Prompts, fields)
		if len(fields) > 0 {
			return nil, apiInvalid(fields)
		}
	}
	queued, err := s.Deployments.Install(ctx, install)
	if err != nil {
		return nil, err
	}
	accepted, err := s.taskAccepted(ctx, queued)
	if err != nil {
		return nil, err
	}
	return oapi.InstallDeployment202JSONResponse{TaskAcceptedJSONResponse: accepted}, nil
}
