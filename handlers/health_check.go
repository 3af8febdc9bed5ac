package handlers

import (
	"context"
	"log/slog"
	"net/http"
	"time"

	"github.com/labstack/echo/v4"
)

// Statuses /readyz gives each check.
const (
	checkOK          = "ok"
	checkUnavailable = "unavailable"
)

// healthz answers while the process runs.
func healthz(c echo.Context) error {
	return c.JSON(http.StatusOK, map[string]string{"status": "ok"})
}

// readyz runs every readiness check and answers 503 when one fails. Anyone
// may call it, so it shows each check's status only; why a check failed
// (which can name socket paths, users or the cluster's address) goes to the
// log at warn.
func readyz(checks []ReadyCheck, logger *slog.Logger) echo.HandlerFunc {
	return func(c echo.Context) error {
		ctx, cancel := context.WithTimeout(c.Request().Context(), 5*time.Second)
		defer cancel()
		status, results := http.StatusOK, map[string]string{}
		for _, check := range checks {
			results[check.Name] = checkOK
			if err := check.Check(ctx); err != nil {
				logger.Warn("readiness check failed", "check", check.Name, "err", err)
				status = http.StatusServiceUnavailable
				results[check.Name] = checkUnavailable
			}
		}
		state := "ready"
		if status != http.StatusOK {
			state = checkUnavailable
		}
		return c.JSON(status, map[string]any{"status": state, "checks": results})
	}
}
