package handlers

import (
	"fmt"
	"log/slog"
	"net/http"
	"net/url"
	"runtime/debug"
	"time"

	"github.com/labstack/echo/v4"

	"github.com/styrmin/styrmin"
	"github.com/styrmin/styrmin/auth"
	"github.com/styrmin/styrmin/views"
)

// Keys of the values the middleware leaves in the Echo context.
const (
	ctxSession = "styrmin.session"
	ctxUser    = "styrmin.user"
)

// contentSecurityPolicy allows only this server's own scripts, styles and
// images: no inline script, no eval, no framing.
const contentSecurityPolicy = "default-src 'self'; script-src 'self'; style-src 'self'; img-src 'self' data:; " +
	"object-src 'none'; base-uri 'none'; form-action 'self'; frame-ancestors 'none'"

// securityHeaders sets the headers every response carries.
func securityHeaders(next echo.HandlerFunc) echo.HandlerFunc {
	return func(c echo.Context) error {
		h := c.Response().Header()
		h.Set("Content-Security-Policy", contentSecurityPolicy)
		h.Set("X-Content-Type-Options", "nosniff")
		h.Set("X-Frame-Options", "DENY")
		h.Set("Referrer-Policy", "same-origin")
		return next(c)
	}
}

// recoverPanics turns a handler's panic into an internal error with its stack in the log.
func recoverPanics(logger *slog.Logger) echo.MiddlewareFunc {
	return func(next echo.HandlerFunc) echo.HandlerFunc {
		return func(c echo.Context) (err error) {
			defer func() {
				if r := recover(); r != nil {
					logger.Error("panic", "method", c.Request().Method, "path", c.Request().URL.Path, "panic", r, "stack", string(debug.Stack()))
					err = fmt.Errorf("handlers: panic: %v", r)
				}
			}()
			return next(c)
		}
	}
}

// logRequests writes one structured log line per request.
func logRequests(logger *slog.Logger) echo.MiddlewareFunc {
	return func(next echo.HandlerFunc) echo.HandlerFunc {
		return func(c echo.Context) error {
			start := time.Now()
			err := next(c)
			if err != nil {
				c.Error(err) // writes the error response so the status is known
			}
			attrs := []any{
				"method", c.Request().Method,
				"path", c.Request().URL.Path,
				"status", c.Response().Status,
				"duration_ms", time.Since(start).Milliseconds(),
				"remote", c.RealIP(),
			}
			if u := currentUser(c); u != nil {
				attrs = append(attrs, "user", u.Username)
			}
			logger.Info("request", attrs...)
			return nil
		}
	}
}

// loadSession reads the session cookie and asks the server-side session who
// is signed in; an ended, expired or void session becomes anonymous. The
// session cookie is written back just before the response's header. Routes
// in bare (health checks, static files) get no session.
func loadSession(sessions *auth.Sessions, bare map[string]bool, logger *slog.Logger) echo.MiddlewareFunc {
	return func(next echo.HandlerFunc) echo.HandlerFunc {
		return func(c echo.Context) error {
			if bare[c.Path()] {
				return next(c)
			}
			sess := sessions.Load(c.Request())
			c.Set(ctxSession, sess)
			c.Response().Before(func() {
				if err := sessions.Save(c.Response(), c.Request(), sess); err != nil {
					logger.Error("save session", "path", c.Request().URL.Path, "err", err)
				}
			})
			u, ok, err := sessions.Authenticate(c.Request().Context(), sess)
			if err != nil {
				return err
			}
			if ok {
				c.Set(ctxUser, &u)
			}
			return next(c)
		}
	}
}

// requireRole sends anonymous visitors to the sign-in page and refuses users
// whose role is below least.
func requireRole(least auth.Role) echo.MiddlewareFunc {
	return func(next echo.HandlerFunc) echo.HandlerFunc {
		return func(c echo.Context) error {
			if least == auth.Anonymous {
				return next(c)
			}
			u := currentUser(c)
			if u == nil {
				return redirectToSignin(c)
			}
			if !u.Role.AtLeast(least) {
				return styrmin.Errorf(styrmin.EFORBIDDEN, "This needs the %s role; you are signed in as %s with the %s role.", least, u.Username, u.Role)
			}
			return next(c)
		}
	}
}

// redirectToSignin sends the visitor to the sign-in page, and back to the
// page they asked for after signing in.
func redirectToSignin(c echo.Context) error {
	target := "/signin"
	if r := c.Request(); r.Method == http.MethodGet && r.URL.Path != "/" {
		target += "?next=" + url.QueryEscape(r.URL.RequestURI())
	}
	return redirect(c, target)
}

// checkCSRF refuses state-changing requests that lack the session's CSRF
// token, in the X-CSRF-Token header (htmx) or the _csrf field of the request
// body; a token in the query string does not count, as URLs end up in logs,
// histories and Referer headers.
func checkCSRF(next echo.HandlerFunc) echo.HandlerFunc {
	return func(c echo.Context) error {
		switch c.Request().Method {
		case http.MethodGet, http.MethodHead, http.MethodOptions:
			return next(c)
		}
		token := c.Request().Header.Get(views.CSRFHeader)
		if token == "" {
			token = c.Request().PostFormValue(views.CSRFField)
		}
		if !session(c).CheckCSRF(token) {
			return styrmin.Errorf(styrmin.EFORBIDDEN, "The request was refused because its security token (CSRF) is missing or out of date. Reload the page and try again.")
		}
		return next(c)
	}
}

// session returns the request's session.
func session(c echo.Context) *auth.Session {
	sess, _ := c.Get(ctxSession).(*auth.Session)
	if sess == nil {
		panic("handlers: no session on a bare route")
	}
	return sess
}

// currentUser returns the signed-in user, or nil.
func currentUser(c echo.Context) *auth.User {
	u, _ := c.Get(ctxUser).(*auth.User)
	return u
}
