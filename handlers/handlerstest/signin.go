package handlerstest

import (
	"net"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"

	"github.com/labstack/echo/v4"
	"github.com/styrmin/styrmin/views"
)

// SigninFrom posts the sign-in form as v from address.
func (a *App) SigninFrom(v Visitor, address, username, password string) *httptest.ResponseRecorder {
	form := url.Values{"username": {username}, "password": {password}, views.CSRFField: {v.CSRF}}
	req := httptest.NewRequest(http.MethodPost, "/signin", strings.NewReader(form.Encode()))
	req.Header.Set(echo.HeaderContentType, echo.MIMEApplicationForm)
	req.RemoteAddr = net.JoinHostPort(address, "40000")
	req.AddCookie(v.Cookie)
	rec := httptest.NewRecorder()
	a.Echo.ServeHTTP(rec, req)
	return rec
}
