package handlers

import (
	"context"
	"net/http"
	"time"

	"github.com/labstack/echo/v4"
)

// healthz answers while the process runs.
func healthz(c echo.Context) error {
	return c.JSON(http.StatusOK, map[string]string{"status": "ok"})
}

// readyz runs every readiness check and answers 503 when one fails.
func readyz(checks []ReadyCheck) echo.HandlerFunc {
	return func(c echo.Context) error {
		ctx, cancel := context.WithTimeout(c.Request().Context(), 5*time.Second)
		defer cancel()
		status, results := http.StatusOK, map[string]string{}
		for _, check := range checks {
			result, err := check.run(ctx)
			if err != nil {
				status = http.StatusServiceUnavailable
				result = err.Error()
			}
			results[check.Name] = result
		}
		state := "ready"
		if status != http.StatusOK {
			state = "unavailable"
		}
		return c.JSON(status, map[string]any{"status": state, "checks": results})
	}
}
