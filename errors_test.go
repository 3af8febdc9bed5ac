package styrmin_test

import (
	"errors"
	"fmt"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/styrmin/styrmin"
)

func TestErrorCodeAndMessage(t *testing.T) {
	t.Parallel()
	cause := errors.New("pq: connection reset")
	coded := &styrmin.Error{Code: styrmin.ECONFLICT, Message: "Name taken.", Fields: map[string]string{"name": "Taken."}, Err: cause}
	tests := []struct {
		name    string
		err     error
		code    string
		message string
		fields  map[string]string
	}{
		{"nil", nil, "", "Something went wrong on the server. The details are in the server log.", nil},
		{"plain", errors.New("boom"), styrmin.EINTERNAL, "Something went wrong on the server. The details are in the server log.", nil},
		{"coded", coded, styrmin.ECONFLICT, "Name taken.", map[string]string{"name": "Taken."}},
		{"wrapped", fmt.Errorf("auth: create: %w", coded), styrmin.ECONFLICT, "Name taken.", map[string]string{"name": "Taken."}},
		{"formatted", styrmin.Errorf(styrmin.ENOTFOUND, "No driver %q.", "x"), styrmin.ENOTFOUND, `No driver "x".`, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			require.Equal(t, tt.code, styrmin.ErrorCode(tt.err))
			require.Equal(t, tt.message, styrmin.ErrorMessage(tt.err))
			require.Equal(t, tt.fields, styrmin.ErrorFields(tt.err))
		})
	}
	require.ErrorIs(t, coded, cause, "the cause stays reachable for logs")
	require.Equal(t, "Name taken.: pq: connection reset", coded.Error())
}
