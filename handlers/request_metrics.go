package handlers

import (
	"net/http"
	"time"

	"github.com/labstack/echo/v4"
)

// unmatchedRoute labels the requests no route of the table answered (404s
// of unknown paths), so that no label carries a path a client made up.
const unmatchedRoute = "unmatched"

// observeRequests tells obs of every request with its route's pattern; it
// comes first, so the status is the one logRequests wrote. nil obs observes
// nothing.
func observeRequests(obs RequestObserver, table []route) echo.MiddlewareFunc {
	known := map[string]bool{}
	for _, r := range table {
		known[r.path] = true
	}
	return func(next echo.HandlerFunc) echo.HandlerFunc {
		if obs == nil {
			return next
		}
		return func(c echo.Context) error {
			start := time.Now()
			err := next(c)
			route := c.Path()
			if !known[route] {
				route = unmatchedRoute
			}
			obs.RequestServed(route, methodLabel(c.Request().Method), c.Response().Status, time.Since(start))
			return err
		}
	}
}

// methodLabel is method when it is one of HTTP's standard methods and
// "other" when a client made it up.
func methodLabel(method string) string {
	switch method {
	case http.MethodGet, http.MethodHead, http.MethodPost, http.MethodPut, http.MethodPatch,
		http.MethodDelete, http.MethodOptions, http.MethodConnect, http.MethodTrace:
		return method
	}
	return "other"
}
