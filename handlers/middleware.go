package handlers

import (
	"fmt"
	"log/slog"
	"net/http"
	"runtime/debug"
	"strings"
	"sync/atomic"
	"time"

	"github.com/labstack/echo/v4"

	"github.com/styrmin/styrmin"
	"github.com/styrmin/styrmin/auth"
	"github.com/styrmin/styrmin/deployment"
	"github.com/styrmin/styrmin/handlers/action"
	"github.com/styrmin/styrmin/handlers/httpx"
	"github.com/styrmin/styrmin/handlers/web"
	"github.com/styrmin/styrmin/views"
)

// contentSecurityPolicy allows only this server's own scripts, styles and
// images: no inline script, no eval, no framing. Forms post to this server,
// and to formOrigin when it is set: the single sign-on provider's end-session
// endpoint, where the sign-out form's answer redirects (browsers apply
// form-action to a form's redirects too).
func contentSecurityPolicy(formOrigin string) string {
	formAction := "'self'"
	if formOrigin != "" {
		formAction += " " + formOrigin
	}
	return "default-src 'self'; script-src 'self'; style-src 'self'; img-src 'self' data:; " +
		"object-src 'none'; base-uri 'none'; form-action " + formAction + "; frame-ancestors 'none'"
}

// securityHeaders sets the headers every response carries; formOrigin
// gives contentSecurityPolicy's, which may change while the server runs
// (single sign-on learns its end-session endpoint once the provider answers).
func securityHeaders(formOrigin func() string) echo.MiddlewareFunc {
	type policy struct{ origin, csp string }
	var last atomic.Pointer[policy]
	last.Store(&policy{csp: contentSecurityPolicy("")})
	return func(next echo.HandlerFunc) echo.HandlerFunc {
		return func(c echo.Context) error {
			p := last.Load()
			if origin := formOrigin(); origin != p.origin {
				p = &policy{origin: origin, csp: contentSecurityPolicy(origin)}
				last.Store(p)
			}
			h := c.Response().Header()
			h.Set("Content-Security-Policy", p.csp)
			h.Set("X-Content-Type-Options", "nosniff")
			h.Set("X-Frame-Options", "DENY")
			h.Set("Referrer-Policy", "same-origin")
			return next(c)
		}
	}
}

// recoverPanics turns a handler's panic into an internal error with its stack in the log.
func recoverPanics(logger *slog.Logger) echo.MiddlewareFunc {
	return func(next echo.HandlerFunc) echo.HandlerFunc {
		return func(c echo.Context) (err error) {
			defer func() {
				if r := recover(); r != nil {
					logger.Error("panic", "method", c.Request().Method, "path", c.Request().URL.Path, "request_id", httpx.RequestID(c.Request().Context()), "panic", r, "stack", string(debug.Stack()))
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
				"request_id", httpx.RequestID(c.Request().Context()),
			}
			if u := httpx.CurrentUser(c); u != nil {
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
			httpx.SetSession(c, sess)
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
				httpx.SetUser(c, &u)
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
			u := httpx.CurrentUser(c)
			if u == nil {
				return web.RedirectToSignin(c)
			}
			if !u.Role.AtLeast(least) {
				return styrmin.Errorf(styrmin.EFORBIDDEN, "This needs the %s role; you are signed in as %s with the %s role.", least, u.Username, u.Role)
			}
			return next(c)
		}
	}
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
		if !httpx.Session(c).CheckCSRF(token) {
			return styrmin.Errorf(styrmin.EFORBIDDEN, "The request was refused because its security token (CSRF) is missing or out of date. Reload the page and try again.")
		}
		return next(c)
	}
}

// requireToken authenticates an API request by its personal API token and
// refuses users whose role is below least; it bounds the request's body
// to maxBody. There is no session and no CSRF
// check: a browser never sends the Authorization header on its own. An
// operation open to anyone (least auth.Anonymous: the password grant, how a
// client without a token gets one) reads no token.
func requireToken(tokens *auth.APITokens, least auth.Role, maxBody int64) echo.MiddlewareFunc {
	return func(next echo.HandlerFunc) echo.HandlerFunc {
		return func(c echo.Context) error {
			c.Request().Body = http.MaxBytesReader(c.Response().Writer, c.Request().Body, maxBody)
			if least == auth.Anonymous {
				return next(c)
			}
			secret, ok := strings.CutPrefix(c.Request().Header.Get(echo.HeaderAuthorization), "Bearer ")
			if !ok || strings.TrimSpace(secret) == "" {
				c.Response().Header().Set(echo.HeaderWWWAuthenticate, `Bearer realm="styrmin"`)
				return styrmin.Errorf(styrmin.EUNAUTHORIZED, "An API token is needed: Authorization: Bearer <token>. Create one on the API tokens page.")
			}
			if tokens == nil {
				return styrmin.Errorf(styrmin.EUNAVAILABLE, "This server has no API token store.")
			}
			cred, err := tokens.Authenticate(c.Request().Context(), strings.TrimSpace(secret))
			if err != nil {
				c.Response().Header().Set(echo.HeaderWWWAuthenticate, `Bearer realm="styrmin", error="invalid_token"`)
				return err
			}
			// The credential is known before its role is checked: a refusal
			// is recorded in its name (auditChanges).
			httpx.SetCredential(c, &cred)
			if u := cred.User; !u.Role.AtLeast(least) {
				return styrmin.Errorf(styrmin.EFORBIDDEN, "This needs the %s role; the token acts as %s with the %s role.", least, u.Username, u.Role)
			}
			return next(c)
		}
	}
}

// withAPICredential puts the API token's credential into the request's
// context, which is what the generated strict handlers pass to the operations.
func withAPICredential(next echo.HandlerFunc) echo.HandlerFunc {
	return func(c echo.Context) error {
		if cred := httpx.CredentialOrNil(c); cred != nil {
			r := c.Request()
			c.SetRequest(r.WithContext(httpx.WithAPICredential(r.Context(), cred)))
		}
		return next(c)
	}
}

// withClientAddress puts the client's address (Echo's RealIP, which
// believes only trusted proxies) into the request's context, where the REST
// API's strict handlers read it: the password grant is throttled per
// address, as the sign-in page is.
func withClientAddress(next echo.HandlerFunc) echo.HandlerFunc {
	return func(c echo.Context) error {
		r := c.Request()
		c.SetRequest(r.WithContext(httpx.WithClientAddress(r.Context(), c.RealIP())))
		return next(c)
	}
}

// requireActionToken authenticates an action primitive's call by the action
// token of the step that makes it, and refuses it without one. p is nil when
// the server runs no deployments.
func requireActionToken(p action.Primitives) echo.MiddlewareFunc {
	return func(next echo.HandlerFunc) echo.HandlerFunc {
		return func(c echo.Context) error {
			token, ok := strings.CutPrefix(c.Request().Header.Get(echo.HeaderAuthorization), "Bearer ")
			var caller *deployment.Caller
			var err error = styrmin.Errorf(styrmin.EUNAUTHORIZED, "An action token is needed: Authorization: Bearer <token>.")
			if p == nil {
				err = styrmin.Errorf(styrmin.EUNAVAILABLE, "This server runs no deployments.")
			} else if ok {
				caller, err = p.Authenticate(c.Request().Context(), strings.TrimSpace(token))
			}
			if err != nil {
				return err
			}
			httpx.SetCaller(c, caller)
			return next(c)
		}
	}
}
