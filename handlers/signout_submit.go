package handlers

import (
	"net/http"

	"github.com/labstack/echo/v4"

	"github.com/styrmin/styrmin/views"
)

// signoutSubmit ends the session.
func signoutSubmit() echo.HandlerFunc {
	return func(c echo.Context) error {
		session(c).SignOut()
		flash(c, views.FlashInfo, "You are signed out.")
		return c.Redirect(http.StatusSeeOther, "/signin")
	}
}
