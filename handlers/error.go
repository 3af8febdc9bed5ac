package handlers

import (
	"errors"
	"log/slog"
	"net/http"

	"github.com/labstack/echo/v4"

	"github.com/styrmin/styrmin"
	"github.com/styrmin/styrmin/db"
	"github.com/styrmin/styrmin/views"
)

// statusOf maps error codes to HTTP statuses.
var statusOf = map[string]int{
	styrmin.EINVALID:      http.StatusBadRequest,
	styrmin.ECONFLICT:     http.StatusConflict,
	styrmin.ENOTFOUND:     http.StatusNotFound,
	styrmin.EFORBIDDEN:    http.StatusForbidden,
	styrmin.EUNAUTHORIZED: http.StatusUnauthorized,
	styrmin.ETHROTTLED:    http.StatusTooManyRequests,
	styrmin.EUNAVAILABLE:  http.StatusServiceUnavailable,
	styrmin.EINTERNAL:     http.StatusInternalServerError,
}

// headingOf names each status on the error page.
var headingOf = map[int]string{
	http.StatusBadRequest:            "The request is not valid",
	http.StatusUnauthorized:          "Sign-in needed",
	http.StatusForbidden:             "Not allowed",
	http.StatusNotFound:              "Page not found",
	http.StatusMethodNotAllowed:      "Method not allowed",
	http.StatusConflict:              "Conflict",
	http.StatusRequestEntityTooLarge: "Upload too large",
	http.StatusTooManyRequests:       "Too many attempts",
	http.StatusServiceUnavailable:    "Temporarily unavailable",
	http.StatusInternalServerError:   "Something went wrong",
}

// errorHandler is the one place that turns an error into a response: a full
// error page, for htmx requests a message swapped into the flash area, for
// the REST API problem details (RFC 9457) with the same code and message.
// Only internal errors and outages are logged.
func errorHandler(logger *slog.Logger) echo.HTTPErrorHandler {
	return func(err error, c echo.Context) {
		if c.Response().Committed {
			logger.Error("error after the response started", "path", c.Request().URL.Path, "err", err)
			return
		}
		status, message := describe(err)
		if status >= http.StatusInternalServerError {
			logger.Error("request failed", "method", c.Request().Method, "path", c.Request().URL.Path, "status", status, "err", err)
		}
		var rerr error
		switch {
		case c.Request().Method == http.MethodHead:
			rerr = c.NoContent(status)
		case isAPI(c):
			c.Response().Header().Set(echo.HeaderContentType, "application/problem+json")
			rerr = c.JSON(status, problem(status, err, message))
		case isHTMX(c):
			c.Response().Header().Set("HX-Retarget", "#flash")
			c.Response().Header().Set("HX-Reswap", "innerHTML")
			rerr = render(c, status, views.FlashMessage(views.Flash{Kind: views.FlashError, Message: message}))
		default:
			rerr = render(c, status, views.ErrorPage(views.ErrorProps{
				Page:    page(c, headingOf[status], ""),
				Status:  status,
				Heading: headingOf[status],
				Message: message,
			}))
		}
		if rerr != nil {
			logger.Error("write error response", "path", c.Request().URL.Path, "err", rerr)
		}
	}
}

// describe returns the status and the user-facing message for err.
func describe(err error) (int, string) {
	var he *echo.HTTPError
	if errors.As(err, &he) {
		msg, ok := he.Message.(string)
		if !ok || he.Code == http.StatusNotFound {
			msg = http.StatusText(he.Code)
		}
		if he.Code == http.StatusNotFound {
			msg = "There is no page at this address. Check the link, or start again from the navigation."
		}
		if _, known := headingOf[he.Code]; !known {
			return http.StatusInternalServerError, styrmin.ErrorMessage(err)
		}
		return he.Code, msg
	}
	err = db.Classify(err)
	status, ok := statusOf[styrmin.ErrorCode(err)]
	if !ok {
		status = http.StatusInternalServerError
	}
	return status, styrmin.ErrorMessage(err)
}
