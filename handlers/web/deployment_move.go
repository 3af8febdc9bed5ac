package web

import (
	"github.com/labstack/echo/v4"

	"github.com/styrmin/styrmin/teams"
	"github.com/styrmin/styrmin/views"
)

// DeploymentMove puts the deployment in the form's team (an admin's change,
// audited as deployment.move) and goes back to its page.
func DeploymentMove(store *teams.Store) echo.HandlerFunc {
	return func(c echo.Context) error {
		name, team := c.Param("name"), c.FormValue("team")
		if err := store.Move(c.Request().Context(), name, team); err != nil {
			return err
		}
		flash(c, views.FlashSuccess, "The deployment "+name+" is in the team "+team+": its members see and operate it, the old team's no longer do.")
		return redirect(c, deploymentPath(name))
	}
}
