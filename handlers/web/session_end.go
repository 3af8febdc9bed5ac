package web

import (
	"context"
	"strconv"

	"github.com/labstack/echo/v4"

	"github.com/styrmin/styrmin"
	"github.com/styrmin/styrmin/auth"
	"github.com/styrmin/styrmin/handlers/httpx"
	"github.com/styrmin/styrmin/views"
)

// ownSessionEnder ends one of the signed-in user's own sessions.
type ownSessionEnder interface {
	EndOwn(ctx context.Context, sess *auth.Session, id int64) error
}

// SessionEnd ends one of the signed-in user's sessions, such as one left open
// on another computer; another user's session is not found.
func SessionEnd(sessions ownSessionEnder) echo.HandlerFunc {
	return func(c echo.Context) error {
		id, err := strconv.ParseInt(c.Param("id"), 10, 64)
		if err != nil || id <= 0 {
			return styrmin.Errorf(styrmin.ENOTFOUND, "There is no session with id %q.", c.Param("id"))
		}
		if err := sessions.EndOwn(c.Request().Context(), httpx.Session(c), id); err != nil {
			return err
		}
		flash(c, views.FlashSuccess, "The session has ended; that browser is signed out.")
		return redirect(c, "/account/sessions")
	}
}
