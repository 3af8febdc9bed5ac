package api

import (
	"context"

	"github.com/styrmin/styrmin"
	oapi "github.com/styrmin/styrmin/api"
	"github.com/styrmin/styrmin/deployment"
	"github.com/styrmin/styrmin/handlers/httpx"
)

// InstallDeployment installs a driver version as a new deployment: the
// request's values, each value left out taking its default.
func (s *Server) InstallDeployment(ctx context.Context, req oapi.InstallDeploymentRequestObject) (oapi.InstallDeploymentResponseObject, error) {
	in := optional(req.Body)
	appVersion, err := s.installAppVersion(ctx, in)
	if err != nil {
		return nil, err
	}
	accepted, err := s.queue(ctx, &deployment.Install{
		Driver: in.Driver, DriverVersion: in.DriverVersion, Name: in.Name, Namespace: optional(in.Namespace),
		AppVersion: appVersion, Parameters: jsonParameters(in.Parameters), Prompts: jsonPrompts(in.Prompts),
		By: httpx.APIUser(ctx).Username,
	})
	if err != nil {
		return nil, err
	}
	return oapi.InstallDeployment202JSONResponse{TaskAcceptedJSONResponse: accepted}, nil
}

// installAppVersion is the request's application version, else the one the
// install form proposes (its chart's). An unknown driver version proposes
// none: the install refuses it, naming the field.
func (s *Server) installAppVersion(ctx context.Context, in oapi.InstallRequest) (string, error) {
	if v := optional(in.AppVersion); v != "" {
		return v, nil
	}
	form, err := s.Deployments.InstallForm(ctx, in.Driver, in.DriverVersion)
	switch {
	case styrmin.ErrorCode(err) == styrmin.ENOTFOUND:
		return "", nil
	case err != nil:
		return "", err
	}
	return form.AppVersion, nil
}
