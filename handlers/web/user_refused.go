package web

import (
	"github.com/labstack/echo/v4"

	"github.com/styrmin/styrmin"
	"github.com/styrmin/styrmin/views"
)

// backToUsers shows a refused change (bad input, last admin) as a message on
// the users page; other errors go to the error handler.
func backToUsers(c echo.Context, err error) error {
	switch styrmin.ErrorCode(err) {
	case styrmin.EINVALID, styrmin.ECONFLICT:
		flash(c, views.FlashError, styrmin.ErrorMessage(err))
		return redirect(c, "/users")
	default:
		return err
	}
}
