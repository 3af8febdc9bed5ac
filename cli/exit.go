package cli

import (
	"errors"
	"fmt"
	"net/http"
)

// The exit codes of the client commands (docs/cli.md): what failed.
const (
	// ExitFailed is any other failure.
	ExitFailed = 1
	// ExitUsage is a command used wrongly: an unknown flag, a missing
	// argument, a bad value, or a question that needs a terminal.
	ExitUsage = 2
	// ExitRefused is a request the server refused: not signed in, not
	// allowed, invalid input, or a conflict with the deployment's state.
	ExitRefused = 3
	// ExitNotFound is a deployment, task or driver the server does not have.
	ExitNotFound = 4
	// ExitTaskFailed is a followed task that failed or was canceled.
	ExitTaskFailed = 5
	// ExitUnavailable is a server that cannot be reached, is busy or failed.
	ExitUnavailable = 6
)

// Error is a failure of a client command with its exit code.
type Error struct {
	// Exit is the process's exit code, one of the Exit constants.
	Exit int
	// Message says what failed and what to do.
	Message string
}

// Error returns the message.
func (e *Error) Error() string { return e.Message }

// fail is an Error with exit code and a formatted message.
func fail(exit int, format string, args ...any) *Error {
	return &Error{Exit: exit, Message: fmt.Sprintf(format, args...)}
}

// usage is an Error of a command used wrongly.
func usage(format string, args ...any) *Error {
	return fail(ExitUsage, format, args...)
}

// ExitCode is the exit code err calls for: its Error's, else ExitFailed
// (0 for no error).
func ExitCode(err error) int {
	var e *Error
	switch {
	case err == nil:
		return 0
	case errors.As(err, &e):
		return e.Exit
	default:
		return ExitFailed
	}
}

// exitOfStatus is the exit code of an HTTP error status of the API.
func exitOfStatus(status int) int {
	switch {
	case status == http.StatusNotFound:
		return ExitNotFound
	case status == http.StatusTooManyRequests || status >= http.StatusInternalServerError:
		return ExitUnavailable
	default:
		return ExitRefused
	}
}
