package httpx

import (
	"errors"
	"fmt"
	"net"
	"net/http"
	"testing"

	"github.com/labstack/echo/v4"
	"github.com/stretchr/testify/require"

	"github.com/styrmin/styrmin"
)

func TestDescribeMapsErrorsToStatuses(t *testing.T) {
	t.Parallel()
	tests := []struct {
		err    error
		status int
	}{
		{errors.New("boom"), http.StatusInternalServerError},
		{echo.ErrNotFound, http.StatusNotFound},
		{echo.ErrMethodNotAllowed, http.StatusMethodNotAllowed},
		{fmt.Errorf("auth: get user: %w", &net.OpError{Op: "dial", Err: errors.New("connection refused")}), http.StatusServiceUnavailable},
		{styrmin.Errorf(styrmin.EINVALID, "bad"), http.StatusBadRequest},
		{styrmin.Errorf(styrmin.ECONFLICT, "taken"), http.StatusConflict},
		{fmt.Errorf("wrapped: %w", styrmin.Errorf(styrmin.ENOTFOUND, "gone")), http.StatusNotFound},
		{styrmin.Errorf(styrmin.EFORBIDDEN, "no"), http.StatusForbidden},
		{styrmin.Errorf(styrmin.ETHROTTLED, "later"), http.StatusTooManyRequests},
		{styrmin.Errorf(styrmin.EUNAVAILABLE, "down"), http.StatusServiceUnavailable},
		{styrmin.Errorf("made-up", "?"), http.StatusInternalServerError},
	}
	for _, tt := range tests {
		status, msg := Describe(tt.err)
		require.Equal(t, tt.status, status, tt.err.Error())
		require.NotEmpty(t, msg)
	}
	_, msg := Describe(errors.New("secret internal detail"))
	require.NotContains(t, msg, "secret internal detail", "internal errors are not shown")
}
