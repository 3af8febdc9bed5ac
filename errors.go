// Package styrmin holds what every part of Styrmin shares: error values that
// carry a code, so one HTTP error handler can pick the status and the page.
package styrmin

import (
	"errors"
	"fmt"
)

// Error codes. A code says what kind of failure happened, not where.
const (
	ECONFLICT     = "conflict"     // the request conflicts with existing state (e.g. name taken)
	EINTERNAL     = "internal"     // a bug or an unexpected failure; logged, never shown in detail
	EINVALID      = "invalid"      // the input is wrong; the message says how to fix it
	ENOTFOUND     = "not_found"    // the thing does not exist
	EFORBIDDEN    = "forbidden"    // the user's role does not allow it
	EUNAUTHORIZED = "unauthorized" // the user is not signed in, or the credentials are wrong
	ETHROTTLED    = "throttled"    // too many attempts; try again later
	EUNAVAILABLE  = "unavailable"  // a dependency (the database, the cluster) does not answer
)

// Error is a failure with a code and a message meant for the user.
type Error struct {
	// Code is one of the E* constants.
	Code string
	// Message is shown to the user as is.
	Message string
	// Fields holds per-field messages for forms (field name → message).
	Fields map[string]string
	// Err is the underlying cause, for logs; never shown to the user.
	Err error
}

// Error returns the message, followed by the cause when there is one.
func (e *Error) Error() string {
	if e.Err != nil {
		return e.Message + ": " + e.Err.Error()
	}
	return e.Message
}

// Unwrap returns the underlying cause.
func (e *Error) Unwrap() error { return e.Err }

// Errorf returns an Error with a code and a formatted message.
func Errorf(code, format string, args ...any) *Error {
	return &Error{Code: code, Message: fmt.Sprintf(format, args...)}
}

// ErrorCode returns the code of the first Error in err's chain, EINTERNAL for
// any other error, and "" for nil.
func ErrorCode(err error) string {
	var e *Error
	switch {
	case err == nil:
		return ""
	case errors.As(err, &e):
		return e.Code
	default:
		return EINTERNAL
	}
}

// ErrorMessage returns the user-facing message of err: the message of its
// Error, or a generic sentence for internal errors.
func ErrorMessage(err error) string {
	var e *Error
	if errors.As(err, &e) {
		return e.Message
	}
	return "Something went wrong on the server. The details are in the server log."
}

// ErrorFields returns the per-field messages of err, if any.
func ErrorFields(err error) map[string]string {
	var e *Error
	if errors.As(err, &e) {
		return e.Fields
	}
	return nil
}
