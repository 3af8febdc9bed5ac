package web

import (
	"fmt"

	"github.com/labstack/echo/v4"

	"github.com/styrmin/styrmin"
	"github.com/styrmin/styrmin/deployment"
	"github.com/styrmin/styrmin/handlers/httpx"
	"github.com/styrmin/styrmin/views"
)

// componentsOperation is the stop or start of components (none: all) of
// the named deployment, asked by by.
type componentsOperation func(name string, components []string, by string) deployment.Operation

// DeploymentComponents queues a stop or start (op) of the posted components
// (the component field, repeated; none means all) and goes back to the page.
func DeploymentComponents(svc deploymentOperator, op componentsOperation, verb string) echo.HandlerFunc {
	return func(c echo.Context) error {
		values, err := c.FormParams()
		if err != nil {
			return styrmin.Errorf(styrmin.EINVALID, "The form could not be read.")
		}
		name := c.Param("name")
		queued, err := svc.Queue(c.Request().Context(), op(name, values["component"], httpx.CurrentUser(c).Username))
		if err != nil {
			return backToDeployment(c, name, err)
		}
		flash(c, views.FlashSuccess, fmt.Sprintf("The %s of %s is queued (task #%d).", verb, queued.Deployment, queued.TaskID))
		return redirect(c, deploymentPath(name))
	}
}

// StopComponents is the stop of components of the named deployment.
func StopComponents(name string, components []string, by string) deployment.Operation {
	return &deployment.Stop{Name: name, Components: components, By: by}
}

// StartComponents is the start of components of the named deployment.
func StartComponents(name string, components []string, by string) deployment.Operation {
	return &deployment.Start{Name: name, Components: components, By: by}
}
