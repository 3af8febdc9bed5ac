package web

import (
	"net/http"
	"strconv"

	"github.com/labstack/echo/v4"

	"github.com/styrmin/styrmin"
	"github.com/styrmin/styrmin/views"
)

// UserTokenList shows an admin the API tokens of one user, to revoke them.
func UserTokenList(users userAdmin, tokens apiTokenStore) echo.HandlerFunc {
	return func(c echo.Context) error {
		id, err := strconv.ParseInt(c.Param("id"), 10, 64)
		if err != nil || id <= 0 {
			return styrmin.Errorf(styrmin.ENOTFOUND, "There is no user with id %q.", c.Param("id"))
		}
		ctx := c.Request().Context()
		u, err := users.Get(ctx, id)
		if err != nil {
			return err
		}
		list, err := tokens.List(ctx, u)
		if err != nil {
			return err
		}
		return render(c, http.StatusOK, views.UserAPITokensPage(views.UserAPITokensProps{
			Page: page(c, "API tokens of "+u.Username, views.NavUsers), UserID: u.ID, Username: u.Username, Tokens: tokenRows(list),
		}))
	}
}
