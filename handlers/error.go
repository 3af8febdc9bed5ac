package handlers

import (
	"log/slog"
	"net/http"

	"github.com/labstack/echo/v4"

	"github.com/styrmin/styrmin/handlers/action"
	"github.com/styrmin/styrmin/handlers/api"
	"github.com/styrmin/styrmin/handlers/httpx"
	"github.com/styrmin/styrmin/handlers/web"
)

// errorHandler is the one place that turns an error into a response: a full
// error page, for htmx requests a message swapped into the flash area, for
// the REST API problem details (RFC 9457) with the same code and message,
// for the action primitives their {"error": message}.
// Only internal errors and outages are logged.
func errorHandler(logger *slog.Logger) echo.HTTPErrorHandler {
	return func(err error, c echo.Context) {
		requestID := httpx.RequestID(c.Request().Context())
		if c.Response().Committed {
			logger.Error("error after the response started", "path", c.Request().URL.Path, "request_id", requestID, "err", err)
			return
		}
		status, message := httpx.Describe(err)
		if status >= http.StatusInternalServerError {
			logger.Error("request failed", "method", c.Request().Method, "path", c.Request().URL.Path, "status", status, "request_id", requestID, "err", err)
		}
		var rerr error
		switch {
		case c.Request().Method == http.MethodHead:
			rerr = c.NoContent(status)
		case api.IsAPI(c):
			rerr = api.WriteError(c, status, err, message)
		case action.IsAction(c):
			rerr = action.WriteError(c, status, err, message)
		default:
			rerr = web.ErrorPage(c, status, message)
		}
		if rerr != nil {
			logger.Error("write error response", "path", c.Request().URL.Path, "request_id", requestID, "err", rerr)
		}
	}
}
