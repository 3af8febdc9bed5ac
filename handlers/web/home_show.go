package handlers

import (
	"net/http"

	"github.com/labstack/echo/v4"
)

// homeShow sends signed-in users to the driver catalogue.
func homeShow() echo.HandlerFunc {
	return func(c echo.Context) error {
		return c.Redirect(http.StatusSeeOther, "/drivers")
	}
}
