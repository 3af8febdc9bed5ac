package web

import (
	"context"
	"net/http"

	"github.com/labstack/echo/v4"

	"github.com/styrmin/styrmin"
	"github.com/styrmin/styrmin/auth"
	"github.com/styrmin/styrmin/handlers/httpx"
	"github.com/styrmin/styrmin/views"
)

// signer checks typed credentials.
type signer interface {
	SignIn(ctx context.Context, username, password, address string) (auth.User, error)
}

// sessionStarter starts a signed-in session.
type sessionStarter interface {
	Start(ctx context.Context, sess *auth.Session, u auth.User, userAgent, address string) error
}

// SigninSubmit signs the user in and sends them where they were going; wrong
// credentials, throttled attempts and users who must use single sign-on come
// back to the form with the reason.
func SigninSubmit(users signer, sessions sessionStarter, provider SingleSignOn) echo.HandlerFunc {
	return func(c echo.Context) error {
		username, next := c.FormValue("username"), safeNext(c.FormValue("next"))
		u, err := users.SignIn(c.Request().Context(), username, c.FormValue("password"), c.RealIP())
		switch code := styrmin.ErrorCode(err); code {
		case "":
		case styrmin.EUNAUTHORIZED, styrmin.ETHROTTLED, styrmin.EFORBIDDEN:
			p := signinProps(c, provider, next)
			p.Username, p.Error = username, styrmin.ErrorMessage(err)
			return render(c, httpx.Status(code), views.SigninPage(p))
		default:
			return err
		}
		if err := sessions.Start(c.Request().Context(), httpx.Session(c), u, c.Request().UserAgent(), c.RealIP()); err != nil {
			return err
		}
		return c.Redirect(http.StatusSeeOther, next)
	}
}
