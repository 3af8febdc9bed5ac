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
	user := httpx.APIUser(ctx)
	where, err := s.Teams.Deployable(ctx, httpx.TeamAccess(ctx, user))
	if err != nil {
		return nil, err
	}
	accepted, err := s.queue(ctx, &deployment.Install{
		Driver: in.Driver, DriverVersion: in.DriverVersion, Name: in.Name, Namespace: optional(in.Namespace),
		Team: optional(in.Team), TeamsAllowed: where.IDs, Admin: where.Admin,
		AppVersion: optional(in.AppVersion), Parameters: jsonParameters(in.Parameters), Prompts: jsonPrompts(in.Prompts),
		By: user.Username,
	})
	if err != nil {
		return nil, err
	}
	return oapi.InstallDeployment202JSONResponse{TaskAcceptedJSONResponse: accepted}, nil
}
