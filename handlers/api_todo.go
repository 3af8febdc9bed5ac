package handlers

import (
	"context"
	"net/http"

	"github.com/labstack/echo/v4"

	"github.com/styrmin/styrmin/api"
)

// notYet answers operations that are not built yet. TEMPORARY: each operation moves to its own file as it is built.
func notYet() error { return echo.NewHTTPError(http.StatusNotImplemented, "not built yet") }

func (s *apiServer) InstallDeployment(ctx context.Context, request api.InstallDeploymentRequestObject) (api.InstallDeploymentResponseObject, error) {
	return nil, notYet()
}

func (s *apiServer) DeleteDeployment(ctx context.Context, request api.DeleteDeploymentRequestObject) (api.DeleteDeploymentResponseObject, error) {
	return nil, notYet()
}

func (s *apiServer) RunAction(ctx context.Context, request api.RunActionRequestObject) (api.RunActionResponseObject, error) {
	return nil, notYet()
}

func (s *apiServer) RollbackDeployment(ctx context.Context, request api.RollbackDeploymentRequestObject) (api.RollbackDeploymentResponseObject, error) {
	return nil, notYet()
}

func (s *apiServer) StartDeployment(ctx context.Context, request api.StartDeploymentRequestObject) (api.StartDeploymentResponseObject, error) {
	return nil, notYet()
}

func (s *apiServer) StopDeployment(ctx context.Context, request api.StopDeploymentRequestObject) (api.StopDeploymentResponseObject, error) {
	return nil, notYet()
}

func (s *apiServer) UpgradeDeployment(ctx context.Context, request api.UpgradeDeploymentRequestObject) (api.UpgradeDeploymentResponseObject, error) {
	return nil, notYet()
}

func (s *apiServer) CancelTask(ctx context.Context, request api.CancelTaskRequestObject) (api.CancelTaskResponseObject, error) {
	return nil, notYet()
}
