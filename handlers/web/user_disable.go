package web

import (
	"fmt"
	"strconv"

	"github.com/labstack/echo/v4"

	"github.com/styrmin/styrmin"
	"github.com/styrmin/styrmin/views"
)

// UserDisable disables (or, with disabled false, enables) a user. A disabled
// user cannot sign in and their sessions end at once.
func UserDisable(users userAdmin, disabled bool) echo.HandlerFunc {
	return func(c echo.Context) error {
		id, err := userID(c)
		if err != nil {
			return err
		}
		u, err := users.SetDisabled(c.Request().Context(), id, disabled)
		if err != nil {
			return backToUsers(c, err)
		}
		state := "enabled"
		if disabled {
			state = "disabled"
		}
		flash(c, views.FlashSuccess, fmt.Sprintf("%s is %s.", u.Username, state))
		return redirect(c, "/users")
	}
}

// userID parses the :id path parameter.
func userID(c echo.Context) (int64, error) {
	id, err := strconv.ParseInt(c.Param("id"), 10, 64)
	if err != nil || id <= 0 {
		return 0, styrmin.Errorf(styrmin.ENOTFOUND, "There is no user with id %q.", c.Param("id"))
	}
	return id, nil
}
