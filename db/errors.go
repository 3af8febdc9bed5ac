package db

import (
	"errors"
	"io"
	"net"
	"strings"

	"github.com/jackc/pgx/v5/pgconn"

	"github.com/styrmin/styrmin"
)

// UnavailableMessage is what users are told when the database does not answer.
const UnavailableMessage = "The database does not answer right now; try again in a moment."

// IsUnavailable reports whether err says the database could not be reached or
// dropped the connection (or is shutting down), rather than that a query failed.
func IsUnavailable(err error) bool {
	var connErr *pgconn.ConnectError
	var netErr net.Error
	var pgErr *pgconn.PgError
	switch {
	case err == nil:
		return false
	case errors.As(err, &connErr), errors.As(err, &netErr), pgconn.Timeout(err):
		return true
	case errors.Is(err, io.EOF), errors.Is(err, io.ErrUnexpectedEOF):
		return true
	case errors.As(err, &pgErr):
		// Class 08: connection exception; 57P: the server is shutting down or restarting.
		return strings.HasPrefix(pgErr.Code, "08") || strings.HasPrefix(pgErr.Code, "57P")
	default:
		return false
	}
}

// Classify returns err as a styrmin.EUNAVAILABLE error when the database does
// not answer, and err unchanged otherwise (nil stays nil). Errors that already
// carry a code keep it.
func Classify(err error) error {
	if styrmin.ErrorCode(err) != styrmin.EINTERNAL || !IsUnavailable(err) {
		return err
	}
	return &styrmin.Error{Code: styrmin.EUNAVAILABLE, Message: UnavailableMessage, Err: err}
}

// IsUniqueViolation reports whether err is PostgreSQL's refusal of a row
// whose key another row holds (unique_violation).
func IsUniqueViolation(err error) bool {
	var pgErr *pgconn.PgError
	return errors.As(err, &pgErr) && pgErr.Code == "23505"
}
