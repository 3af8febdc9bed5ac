package web

import (
	"fmt"

	"github.com/labstack/echo/v4"

	"github.com/styrmin/styrmin/auth"
	"github.com/styrmin/styrmin/views"
)

// UserRole changes a user's role.
func UserRole(users userAdmin) echo.HandlerFunc {
	return func(c echo.Context) error {
		id, err := userID(c)
		if err != nil {
			return err
		}
		role, err := auth.ParseRole(c.FormValue("role"))
		if err != nil {
			return backToUsers(c, err)
		}
		u, err := users.SetRole(c.Request().Context(), id, role)
		if err != nil {
			return backToUsers(c, err)
		}
		flash(c, views.FlashSuccess, fmt.Sprintf("%s now has the %s role.", u.Username, u.Role))
		return redirect(c, "/users")
	}
}
