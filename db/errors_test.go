package db_test

import (
	"context"
	"errors"
	"fmt"
	"io"
	"testing"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
	"github.com/stretchr/testify/require"

	"github.com/styrmin/styrmin"
	"github.com/styrmin/styrmin/db"
)

func TestClassify(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name string
		err  error
		want string // the code after Classify
	}{
		{"nil", nil, ""},
		{"no rows is not an outage", pgx.ErrNoRows, styrmin.EINTERNAL},
		{"unique violation", &pgconn.PgError{Code: "23505"}, styrmin.EINTERNAL},
		{"connection exception", fmt.Errorf("auth: get user: %w", &pgconn.PgError{Code: "08006"}), styrmin.EUNAVAILABLE},
		{"admin shutdown", &pgconn.PgError{Code: "57P01"}, styrmin.EUNAVAILABLE},
		{"cannot connect now", &pgconn.PgError{Code: "57P03"}, styrmin.EUNAVAILABLE},
		{"connection dropped", fmt.Errorf("read: %w", io.ErrUnexpectedEOF), styrmin.EUNAVAILABLE},
		{"deadline", context.DeadlineExceeded, styrmin.EUNAVAILABLE},
		{"other error", errors.New("boom"), styrmin.EINTERNAL},
		{"already coded", styrmin.Errorf(styrmin.ENOTFOUND, "gone: %v", io.EOF), styrmin.ENOTFOUND},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			got := db.Classify(tt.err)
			require.Equal(t, tt.want, styrmin.ErrorCode(got))
			require.Equal(t, tt.want == styrmin.EUNAVAILABLE, db.IsUnavailable(tt.err))
			if tt.want == styrmin.EUNAVAILABLE {
				require.Equal(t, db.UnavailableMessage, styrmin.ErrorMessage(got))
				require.ErrorIs(t, got, tt.err, "the cause stays in the chain for the log")
			}
		})
	}
}

// TestUnreachableDatabaseIsUnavailable connects to a port nobody listens on.
func TestUnreachableDatabaseIsUnavailable(t *testing.T) {
	t.Parallel()
	_, err := db.Open(context.Background(), "postgres://nobody@127.0.0.1:1/none?connect_timeout=2")
	require.Error(t, err)
	require.Equal(t, styrmin.EUNAVAILABLE, styrmin.ErrorCode(db.Classify(err)))
}
