package api

import (
	"context"

	oapi "github.com/styrmin/styrmin/api"
	"github.com/styrmin/styrmin/deployment"
	"github.com/styrmin/styrmin/handlers/httpx"
)

// InstallDeployment installs a driver version as a new deployment: the
// request's values, each value left out taking its default.
func (s *Server) InstallDeployment(ctx context.Context, req oapi.InstallDeploymentRequestObject) (oapi.InstallDeploymentResponseObject, error) {
	in := optional(req.Body)
	accepted, err := s.queue(ctx, &deployment.Install{
		Driver: in.Driver, DriverVersion: in.DriverVersion, Name: in.Name, Namespace: optional(in.Namespace),
		AppVersion: optional(in.AppVersion), Parameters: jsonParameters(in.Parameters), Prompts: jsonPrompts(in.Prompts),
		By: httpx.APIUser(ctx).Username,
	})
	if err != nil {
		return nil, err
	}
	return oapi.InstallDeployment202JSONResponse{TaskAcceptedJSONResponse: accepted}, nil
}
