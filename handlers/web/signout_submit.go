package web

import (
	"context"
	"net/http"

	"github.com/labstack/echo/v4"

	"github.com/styrmin/styrmin/auth"
	"github.com/styrmin/styrmin/handlers/httpx"
	"github.com/styrmin/styrmin/views"
)

// sessionEnder ends the caller's session on the server.
type sessionEnder interface {
	End(ctx context.Context, sess *auth.Session) error
	IDToken(ctx context.Context, sess *auth.Session) (string, error)
}

// SignoutSubmit ends the session on the server, so that a copy of the cookie
// stops working too. A session signed in through single sign-on goes on to
// the provider's end-session endpoint, when it has one, which ends the
// session there and comes back to the sign-in page; provider is nil without
// single sign-on.
func SignoutSubmit(sessions sessionEnder, provider SingleSignOn) echo.HandlerFunc {
	return func(c echo.Context) error {
		ctx, sess := c.Request().Context(), httpx.Session(c)
		idToken, err := sessions.IDToken(ctx, sess)
		if err != nil {
			return err
		}
		if err := sessions.End(ctx, sess); err != nil {
			return err
		}
		flash(c, views.FlashInfo, "You are signed out.")
		if provider != nil && idToken != "" {
			if target := provider.EndSessionURL(idToken); target != "" {
				return c.Redirect(http.StatusSeeOther, target)
			}
		}
		return c.Redirect(http.StatusSeeOther, "/signin")
	}
}
