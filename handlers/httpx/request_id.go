package httpx

import (
	"context"
	"crypto/rand"

	"github.com/styrmin/styrmin/audit"
)

// HeaderRequestID names the header that carries a request's id: every
// answer has it, and a trusted proxy's request may bring it.
const HeaderRequestID = "X-Request-Id"

// requestIDKey keys the request's id in its context.
type requestIDKey struct{}

// WithRequestID returns ctx carrying the request's id.
func WithRequestID(ctx context.Context, id string) context.Context {
	return context.WithValue(ctx, requestIDKey{}, id)
}

// RequestID returns the id of the request ctx belongs to; empty outside a request.
func RequestID(ctx context.Context) string {
	id, _ := ctx.Value(requestIDKey{}).(string)
	return id
}

// NewRequestID returns a fresh request id (128 random bits, 26 characters).
func NewRequestID() string { return rand.Text() }

// ValidRequestID reports whether id, brought by a proxy, may be a request's
// id: 1 to 128 visible ASCII characters, none of which could break a log
// line, a header or a quoted value.
func ValidRequestID(id string) bool {
	if id == "" || len(id) > audit.MaxRequestID {
		return false
	}
	for i := 0; i < len(id); i++ {
		if c := id[i]; c <= ' ' || c > '~' || c == '"' || c == '\\' {
			return false
		}
	}
	return true
}
