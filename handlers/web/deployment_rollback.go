package web

import (
	"fmt"
	"strconv"

	"github.com/labstack/echo/v4"

	"github.com/styrmin/styrmin/deployment"
	"github.com/styrmin/styrmin/handlers/httpx"
	"github.com/styrmin/styrmin/views"
)

// DeploymentRollback queues a roll back to the posted revision.
func DeploymentRollback(svc deploymentOperator) echo.HandlerFunc {
	return func(c echo.Context) error {
		name := c.Param("name")
		// A revision that is not a number is none: the rollback refuses it.
		revision, _ := strconv.Atoi(c.FormValue("revision"))
		queued, err := svc.Queue(c.Request().Context(), &deployment.Rollback{Name: name, Revision: revision, By: httpx.CurrentUser(c).Username})
		if err != nil {
			return backToDeployment(c, name, err)
		}
		flash(c, views.FlashSuccess, fmt.Sprintf("The roll back of %s to revision %d is queued (task #%d).", name, revision, queued.TaskID))
		return redirect(c, deploymentPath(name))
	}
}
