package web

import (
	"net/http"

	"github.com/labstack/echo/v4"

	"github.com/styrmin/styrmin/handlers/httpx"
	"github.com/styrmin/styrmin/views"
)

// SigninShow shows the sign-in form, with single sign-on first when provider
// is set, or sends a signed-in user on.
func SigninShow(provider SingleSignOn) echo.HandlerFunc {
	return func(c echo.Context) error {
		next := safeNext(c.QueryParam("next"))
		if httpx.CurrentUser(c) != nil {
			return c.Redirect(http.StatusSeeOther, next)
		}
		return render(c, http.StatusOK, views.SigninPage(signinProps(c, provider, next)))
	}
}

// signinProps are the sign-in page's props for a visitor going to next.
func signinProps(c echo.Context, provider SingleSignOn, next string) views.SigninProps {
	p := views.SigninProps{Page: page(c, "Sign in", ""), Next: next}
	if provider != nil {
		p.SSOName, p.SSOURL = provider.Name(), ssoStartURL(next)
	}
	return p
}
