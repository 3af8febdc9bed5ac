package web

import (
	"fmt"

	"github.com/labstack/echo/v4"

	"github.com/styrmin/styrmin/auth"
	"github.com/styrmin/styrmin/views"
)

// UserPassword sets a new password for a user and ends their sessions; a
// blank password gets a generated one, shown once.
func UserPassword(users userAdmin) echo.HandlerFunc {
	return func(c echo.Context) error {
		id, err := userID(c)
		if err != nil {
			return err
		}
		password, generated := auth.PasswordOrGenerated(c.FormValue("password"))
		u, err := users.SetPassword(c.Request().Context(), id, password)
		if err != nil {
			return backToUsers(c, err)
		}
		msg := fmt.Sprintf("The password of %s is changed; their sessions have ended.", u.Username)
		if generated {
			msg = fmt.Sprintf("The new password of %s is %s — copy it now, it is not shown again. Their sessions have ended.", u.Username, password)
		}
		flash(c, views.FlashSuccess, msg)
		return redirect(c, "/users")
	}
}
