package web

import (
	"strconv"

	"github.com/labstack/echo/v4"

	"github.com/styrmin/styrmin"
	"github.com/styrmin/styrmin/auth"
	"github.com/styrmin/styrmin/handlers/httpx"
	"github.com/styrmin/styrmin/views"
)

// TokenRevoke revokes an API token: one of the caller's own or, for an
// admin, anyone's. Another user's token is not found for a non-admin.
func TokenRevoke(tokens apiTokenStore) echo.HandlerFunc {
	return func(c echo.Context) error {
		id, err := strconv.ParseInt(c.Param("id"), 10, 64)
		if err != nil || id <= 0 {
			return styrmin.Errorf(styrmin.ENOTFOUND, "There is no API token with id %q.", c.Param("id"))
		}
		if err := tokens.Revoke(c.Request().Context(), *httpx.CurrentUser(c), id); err != nil {
			return err
		}
		flash(c, views.FlashSuccess, "The API token is revoked; scripts that use it are refused from now on.")
		return redirect(c, tokensPageOf(c))
	}
}

// tokensPageOf returns the page a Revoke button was on: an admin's page of
// another user's tokens (the form's "user"), or the caller's own.
func tokensPageOf(c echo.Context) string {
	me := httpx.CurrentUser(c)
	owner, err := strconv.ParseInt(c.FormValue("user"), 10, 64)
	if err == nil && owner > 0 && owner != me.ID && me.Role.AtLeast(auth.Admin) {
		return views.UserAPITokensURL(owner)
	}
	return "/account/tokens"
}
