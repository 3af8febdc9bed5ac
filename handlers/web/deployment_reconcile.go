package web

import (
	"context"
	"fmt"

	"github.com/labstack/echo/v4"

	"github.com/styrmin/styrmin/deployment"
	"github.com/styrmin/styrmin/handlers/httpx"
	"github.com/styrmin/styrmin/views"
)

// DeploymentReconcile queues a re-apply of the release as it is.
func DeploymentReconcile(svc deploymentOperator) echo.HandlerFunc {
	return func(c echo.Context) error {
		name := c.Param("name")
		queued, err := svc.Queue(c.Request().Context(), &deployment.Reconcile{Name: name, By: httpx.CurrentUser(c).Username})
		if err != nil {
			return backToDeployment(c, name, err)
		}
		flash(c, views.FlashSuccess, fmt.Sprintf("The reconcile of %s is queued (task #%d).", name, queued.TaskID))
		return redirect(c, deploymentPath(name))
	}
}

// driftAccepter is what the drift section's Accept button needs.
type driftAccepter interface {
	AcceptDrift(ctx context.Context, name, by string) (*deployment.Drift, error)
}

// DeploymentDriftAccept accepts the deployment's drift as it is now.
func DeploymentDriftAccept(svc driftAccepter) echo.HandlerFunc {
	return func(c echo.Context) error {
		name := c.Param("name")
		dr, err := svc.AcceptDrift(c.Request().Context(), name, httpx.CurrentUser(c).Username)
		if err != nil {
			return backToDeployment(c, name, err)
		}
		flash(c, views.FlashSuccess, fmt.Sprintf("%d differences of %s are accepted: it reads %s until they change again.", len(dr.Accepted), name, dr.Word))
		return redirect(c, deploymentPath(name)+"#deployment-drift")
	}
}
