package handlers

import (
	"net"

	"github.com/labstack/echo/v4"

	"github.com/styrmin/styrmin/handlers/httpx"
)

// assignRequestIDs gives every request its id, in its context and in the
// answer's X-Request-Id header: the id a trusted proxy brought (so one id
// follows the request through the proxy's log and Styrmin's), else a fresh
// one. A client that is not a trusted proxy cannot choose its id, nor can a
// proxy pass one that could break a log line.
func assignRequestIDs(trusted []*net.IPNet) echo.MiddlewareFunc {
	return func(next echo.HandlerFunc) echo.HandlerFunc {
		return func(c echo.Context) error {
			r := c.Request()
			id := r.Header.Get(httpx.HeaderRequestID)
			if !peerIn(r, trusted) || !httpx.ValidRequestID(id) {
				id = httpx.NewRequestID()
			}
			c.Response().Header().Set(httpx.HeaderRequestID, id)
			c.SetRequest(r.WithContext(httpx.WithRequestID(r.Context(), id)))
			return next(c)
		}
	}
}
