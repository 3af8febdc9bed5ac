// Package web is the pages: templ views rendered for forms, links and htmx
// requests, with flashes and redirects, over the deployment service.
package web

import (
	"net/http"
	"net/url"
	"strconv"

	"github.com/a-h/templ"
	"github.com/labstack/echo/v4"

	"github.com/styrmin/styrmin/handlers/httpx"
	"github.com/styrmin/styrmin/views"
)

// render writes a templ component as the HTML response with status. The page
// is rendered into memory first and sent in one write with its length: fewer
// system calls than a chunked stream, and a render error still gets an error page.
func render(c echo.Context, status int, component templ.Component) error {
	buf := templ.GetBuffer()
	defer templ.ReleaseBuffer(buf)
	if err := component.Render(c.Request().Context(), buf); err != nil {
		return err
	}
	return htmlBlob(c, status, buf.Bytes())
}

// htmlBlob sends body as the HTML response with status and its length, so
// that it goes out as it is rather than in chunks.
func htmlBlob(c echo.Context, status int, body []byte) error {
	c.Response().Header().Set(echo.HeaderContentLength, strconv.Itoa(len(body)))
	return c.HTMLBlob(status, body)
}

// page returns the layout's props for the current request: the signed-in
// user, the CSRF token and the flash messages (which it consumes).
func page(c echo.Context, title, nav string) views.Page {
	p := views.Page{Title: title, Nav: nav}
	sess := httpx.SessionOrNil(c)
	if sess == nil {
		return p
	}
	p.CSRFToken = sess.CSRF
	for _, f := range sess.TakeFlashes() {
		p.Flashes = append(p.Flashes, views.Flash{Kind: f.Kind, Message: f.Message})
	}
	if u := httpx.CurrentUser(c); u != nil {
		p.User = &views.User{ID: u.ID, Username: u.Username, Role: u.Role.String()}
	}
	return p
}

// flash queues a message for the next page.
func flash(c echo.Context, kind, message string) {
	httpx.Session(c).AddFlash(kind, message)
}

// redirect sends the browser to target after a form post or when sign-in is
// needed: a 303 for ordinary requests, an HX-Redirect header for htmx ones.
func redirect(c echo.Context, target string) error {
	if isHTMX(c) {
		c.Response().Header().Set("HX-Redirect", target)
		return c.NoContent(http.StatusOK)
	}
	return c.Redirect(http.StatusSeeOther, target)
}

// isHTMX reports whether htmx made the request to swap part of a page
// (boosted navigation counts as a full page).
func isHTMX(c echo.Context) bool {
	h := c.Request().Header
	return h.Get("HX-Request") == "true" && h.Get("HX-Boosted") != "true"
}

// ErrorPage renders the error page for status with message: a full page, or
// for an htmx request the message swapped into the flash area.
func ErrorPage(c echo.Context, status int, message string) error {
	if isHTMX(c) {
		c.Response().Header().Set("HX-Retarget", "#flash")
		c.Response().Header().Set("HX-Reswap", "innerHTML")
		return render(c, status, views.FlashMessage(views.Flash{Kind: views.FlashError, Message: message}))
	}
	heading := httpx.Heading(status)
	return render(c, status, views.ErrorPage(views.ErrorProps{
		Page:      page(c, heading, ""),
		Status:    status,
		Heading:   heading,
		Message:   message,
		RequestID: httpx.RequestID(c.Request().Context()),
	}))
}

// RedirectToSignin sends the visitor to the sign-in page, and back to the
// page they asked for after signing in.
func RedirectToSignin(c echo.Context) error {
	target := "/signin"
	if r := c.Request(); r.Method == http.MethodGet && r.URL.Path != "/" {
		target += "?next=" + url.QueryEscape(r.URL.RequestURI())
	}
	return redirect(c, target)
}
