package web

import (
	"github.com/labstack/echo/v4"

	"github.com/styrmin/styrmin"
	"github.com/styrmin/styrmin/handlers/httpx"
	"github.com/styrmin/styrmin/views"
)

// backToDeployment shows a refused change (bad input, a deleted deployment)
// as a message on the deployment's page; other errors, and an unknown
// deployment, go to the error handler.
func backToDeployment(c echo.Context, name string, err error) error {
	switch styrmin.ErrorCode(err) {
	case styrmin.EINVALID, styrmin.ECONFLICT:
		flash(c, views.FlashError, httpx.WithFields(err, styrmin.ErrorMessage(err)))
		return redirect(c, deploymentPath(name))
	default:
		return err
	}
}
