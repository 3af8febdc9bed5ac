package web

import (
	"fmt"

	"github.com/labstack/echo/v4"

	"github.com/styrmin/styrmin/deployment"
	"github.com/styrmin/styrmin/handlers/httpx"
	"github.com/styrmin/styrmin/views"
)

// DeploymentActionRun queues a run of a manual action with its form's
// prompts (param.<prompt> fields); refused values come back as a message on
// the deployment page.
func DeploymentActionRun(svc deploymentOperator) echo.HandlerFunc {
	return func(c echo.Context) error {
		name, action := c.Param("name"), c.Param("action")
		form, err := c.FormParams()
		if err != nil {
			return err
		}
		queued, err := svc.Queue(c.Request().Context(), &deployment.RunAction{Name: name, Action: action,
			Prompts: deployment.FormInput(readEntered(form).Params), By: httpx.CurrentUser(c).Username})
		if err != nil {
			return backToDeployment(c, name, err)
		}
		flash(c, views.FlashSuccess, fmt.Sprintf("Action %s is queued (task #%d).", action, queued.TaskID))
		return redirect(c, deploymentPath(name))
	}
}
