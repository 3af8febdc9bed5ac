package web

import (
	"context"
	"fmt"

	"github.com/labstack/echo/v4"

	"github.com/styrmin/styrmin"
	"github.com/styrmin/styrmin/deployment"
	"github.com/styrmin/styrmin/handlers/httpx"
	"github.com/styrmin/styrmin/views"
)

// componentsOperation is Stop or Start of the service.
type componentsOperation func(ctx context.Context, name string, components []string, by string) (*deployment.Queued, error)

// DeploymentComponents queues a stop or start of the posted components (the
// component field, repeated; none means all) and goes back to the page.
func DeploymentComponents(op componentsOperation, verb string) echo.HandlerFunc {
	return func(c echo.Context) error {
		values, err := c.FormParams()
		if err != nil {
			return styrmin.Errorf(styrmin.EINVALID, "The form could not be read.")
		}
		name := c.Param("name")
		queued, err := op(c.Request().Context(), name, values["component"], httpx.CurrentUser(c).Username)
		if err != nil {
			return backToDeployment(c, name, err)
		}
		flash(c, views.FlashSuccess, fmt.Sprintf("The %s of %s is queued (task #%d).", verb, queued.Deployment, queued.TaskID))
		return redirect(c, deploymentPath(name))
	}
}

// StopOf is svc's Stop, looked up only when called: svc is nil when a test
// builds the permission table without dependencies.
func StopOf(svc deploymentOperator) componentsOperation {
	return func(ctx context.Context, name string, components []string, by string) (*deployment.Queued, error) {
		return svc.Stop(ctx, name, components, by)
	}
}

// StartOf is svc's Start, looked up only when called.
func StartOf(svc deploymentOperator) componentsOperation {
	return func(ctx context.Context, name string, components []string, by string) (*deployment.Queued, error) {
		return svc.Start(ctx, name, components, by)
	}
}
