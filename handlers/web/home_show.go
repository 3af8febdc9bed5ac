package web

import (
	"net/http"

	"github.com/labstack/echo/v4"
)

// HomeShow sends signed-in users to the driver catalogue.
func HomeShow() echo.HandlerFunc {
	return func(c echo.Context) error {
		return c.Redirect(http.StatusSeeOther, "/drivers")
	}
}
