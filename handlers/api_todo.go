package handlers

import (
	"context"
	"net/http"

	"github.com/labstack/echo/v4"

	"github.com/styrmin/styrmin/api"
)

// notYet answers operations that are not built yet. TEMPORARY: each operation moves to its own file as it is built.
func notYet() error { return echo.NewHTTPError(http.StatusNotImplemented, "not built yet") }

func (s *apiServer) ListDeployments(ctx context.Context, request api.ListDeploymentsRequestObject) (api.ListDeploymentsResponseObject, error) {
	return nil, notYet()
}

func (s *apiServer) GetDeployment(ctx context.Context, request api.GetDeploymentRequestObject) (api.GetDeploymentResponseObject, error) {
	return nil, notYet()
}

func (s *apiServer) ListDrivers(ctx context.Context, request api.ListDriversRequestObject) (api.ListDriversResponseObject, error) {
	return nil, notYet()
}

func (s *apiServer) GetDriver(ctx context.Context, request api.GetDriverRequestObject) (api.GetDriverResponseObject, error) {
	return nil, notYet()
}

func (s *apiServer) GetDriverVersion(ctx context.Context, request api.GetDriverVersionRequestObject) (api.GetDriverVersionResponseObject, error) {
	return nil, notYet()
}

func (s *apiServer) ListTasks(ctx context.Context, request api.ListTasksRequestObject) (api.ListTasksResponseObject, error) {
	return nil, notYet()
}

func (s *apiServer) GetTask(ctx context.Context, request api.GetTaskRequestObject) (api.GetTaskResponseObject, error) {
	return nil, notYet()
}
