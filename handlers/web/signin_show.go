package web

import (
	"net/http"

	"github.com/labstack/echo/v4"

	"github.com/styrmin/styrmin/handlers/httpx"
	"github.com/styrmin/styrmin/views"
)

// SigninShow shows the sign-in form, or sends a signed-in user on.
func SigninShow() echo.HandlerFunc {
	return func(c echo.Context) error {
		next := safeNext(c.QueryParam("next"))
		if httpx.CurrentUser(c) != nil {
			return c.Redirect(http.StatusSeeOther, next)
		}
		return render(c, http.StatusOK, views.SigninPage(views.SigninProps{Page: page(c, "Sign in", ""), Next: next}))
	}
}
