package httpx

import (
	"errors"
	"maps"
	"net/http"
	"slices"
	"strings"

	"github.com/labstack/echo/v4"

	"github.com/styrmin/styrmin"
	"github.com/styrmin/styrmin/db"
	"github.com/styrmin/styrmin/deployment"
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

// headingOf names each status: the error page's heading and the REST API's
// problem title (api/openapi.yaml: "as on the error page").
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

// Heading names status in a few words ("Page not found").
func Heading(status int) string {
	return headingOf[status]
}

// Describe returns the status and the user-facing message for err.
func Describe(err error) (int, string) {
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

// Code is the error code of an answer: the error's own, else the one its
// HTTP status stands for (a route not found, a malformed parameter...).
func Code(status int, err error) string {
	if code := styrmin.ErrorCode(err); code != styrmin.EINTERNAL || status == http.StatusInternalServerError {
		return code
	}
	for code, s := range statusOf {
		if s == status {
			return code
		}
	}
	return styrmin.EINVALID
}

// WithFields is message, or for the pages' "see the marked fields", which a
// script has no fields to see, each field and its message.
func WithFields(err error, message string) string {
	if fields := styrmin.ErrorFields(err); len(fields) > 0 && message == deployment.InvalidFields {
		return "Some values need fixing: " + fieldList(fields)
	}
	return message
}

// fieldList is "field: message" for each field, by field name.
func fieldList(fields map[string]string) string {
	names := slices.Sorted(maps.Keys(fields))
	for i, name := range names {
		names[i] = name + ": " + strings.TrimSuffix(fields[name], ".")
	}
	return strings.Join(names, "; ") + "."
}

// StatusOf returns the HTTP status of an error code, and whether the code
// is one of styrmin's.
func StatusOf(code string) (int, bool) {
	status, ok := statusOf[code]
	return status, ok
}

// Status returns the HTTP status of an error code (500 for an unknown one).
func Status(code string) int {
	if status, ok := statusOf[code]; ok {
		return status
	}
	return http.StatusInternalServerError
}
