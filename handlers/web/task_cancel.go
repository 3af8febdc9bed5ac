package web

import (
	"fmt"

	"github.com/labstack/echo/v4"

	"github.com/styrmin/styrmin"
	"github.com/styrmin/styrmin/handlers/httpx"
	"github.com/styrmin/styrmin/views"
)

// TaskCancel cancels a queued task and goes back to the deployment's page.
func TaskCancel(svc deploymentOperator) echo.HandlerFunc {
	return func(c echo.Context) error {
		name := c.Param("name")
		id, ok := parseID(c.Param("id"))
		if !ok {
			return styrmin.Errorf(styrmin.ENOTFOUND, "Deployment %s has no task %q.", name, c.Param("id"))
		}
		if err := svc.CancelTask(c.Request().Context(), name, id, httpx.CurrentUser(c).Username); err != nil {
			return backToDeployment(c, name, err)
		}
		flash(c, views.FlashSuccess, fmt.Sprintf("Task #%d is cancelled.", id))
		return redirect(c, deploymentPath(name))
	}
}
