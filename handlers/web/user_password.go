package web

import (
	"fmt"

	"github.com/labstack/echo/v4"

	"github.com/styrmin/styrmin/auth"
	"github.com/styrmin/styrmin/views"
)

// UserPassword sets a new password for a user and ends their sessions, and
// their API tokens when the form's box (checked at first) says so; a blank
// password gets a generated one, shown once.
func UserPassword(users userAdmin) echo.HandlerFunc {
	return func(c echo.Context) error {
		id, err := userID(c)
		if err != nil {
			return err
		}
		password, generated := auth.PasswordOrGenerated(c.FormValue("password"))
		tokens := auth.APITokensOnReset(c.FormValue("revoke_api_tokens") != "")
		u, err := users.SetPassword(c.Request().Context(), id, password, tokens)
		if err != nil {
			return backToUsers(c, err)
		}
		ended := "Their sessions have ended."
		if tokens == auth.EndAPITokens {
			ended = "Their sessions have ended and their API tokens are revoked."
		}
		msg := fmt.Sprintf("The password of %s is changed. %s", u.Username, ended)
		if generated {
			msg = fmt.Sprintf("The new password of %s is %s — copy it now, it is not shown again. %s", u.Username, password, ended)
		}
		flash(c, views.FlashSuccess, msg)
		return redirect(c, "/users")
	}
}
