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

// passwordChanger is what the own-password page needs.
type passwordChanger interface {
	ChangeOwnPassword(ctx context.Context, u auth.User, current, next, address string) (auth.User, error)
}

// AccountPasswordShow is the form that changes the user's own password.
func AccountPasswordShow() echo.HandlerFunc {
	return func(c echo.Context) error {
		return renderAccountPassword(c, http.StatusOK, nil)
	}
}

// AccountPasswordSubmit changes the user's own password once the current
// one is given (throttled as sign-in is), ends every session of the user
// (copies of this cookie included) and starts a new one for this browser.
func AccountPasswordSubmit(users passwordChanger, sessions sessionStarter) echo.HandlerFunc {
	return func(c echo.Context) error {
		u := httpx.CurrentUser(c)
		next := c.FormValue("password")
		if next != c.FormValue("confirm") {
			msg := "The two new passwords differ."
			return renderAccountPassword(c, httpx.Status(styrmin.EINVALID), &styrmin.Error{Code: styrmin.EINVALID, Message: msg, Fields: map[string]string{"confirm": msg}})
		}
		changed, err := users.ChangeOwnPassword(c.Request().Context(), *u, c.FormValue("current_password"), next, c.RealIP())
		switch code := styrmin.ErrorCode(err); code {
		case "":
		case styrmin.EINVALID, styrmin.ETHROTTLED:
			return renderAccountPassword(c, httpx.Status(code), err)
		default:
			return err
		}
		if err := sessions.Start(c.Request().Context(), httpx.Session(c), changed, c.Request().UserAgent(), c.RealIP()); err != nil {
			return err
		}
		flash(c, views.FlashSuccess, "Your password is changed. Your other sessions have ended; sign in there again with the new password.")
		return redirect(c, "/account/password")
	}
}

// renderAccountPassword renders the form, with why err refused the last
// attempt when it is not nil.
func renderAccountPassword(c echo.Context, status int, err error) error {
	props := views.AccountPasswordProps{Page: page(c, "Password", ""), MinLength: auth.MinPasswordLength}
	if err != nil {
		props.Error, props.FieldErrors = styrmin.ErrorMessage(err), styrmin.ErrorFields(err)
	}
	return render(c, status, views.AccountPasswordPage(props))
}
