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
}

// SignoutSubmit ends the session on the server, so that a copy of the cookie
// stops working too.
func SignoutSubmit(sessions sessionEnder) echo.HandlerFunc {
	return func(c echo.Context) error {
		if err := sessions.End(c.Request().Context(), httpx.Session(c)); err != nil {
			return err
		}
		flash(c, views.FlashInfo, "You are signed out.")
		return c.Redirect(http.StatusSeeOther, "/signin")
	}
}
