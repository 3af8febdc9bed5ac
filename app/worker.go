package app

import (
	"context"
	"fmt"
	"log/slog"
	"time"

	"github.com/styrmin/styrmin/auth"
	"github.com/styrmin/styrmin/executor"
	"github.com/styrmin/styrmin/sso"
)

// runWorker works tasks until ctx ends, then drains them for up to drain.
// Stopped while it starts, it stops cleanly: it ran nothing yet.
func runWorker(ctx context.Context, worker *executor.Worker, drain time.Duration, logger *slog.Logger) error {
	if err := worker.Start(ctx); err != nil {
		if ctx.Err() != nil {
			logger.Info("executor stopped before it started")
			return nil
		}
		return err
	}
	logger.Info("executor started")
	<-ctx.Done()
	stopCtx, cancel := context.WithTimeout(context.Background(), drain)
	defer cancel()
	if err := worker.Stop(stopCtx); err != nil {
		return fmt.Errorf("executor: %w", err)
	}
	logger.Info("executor stopped")
	return nil
}

// forgetStale deletes stale sign-in failures, dead sessions and unfinished
// single sign-ons (provider is nil without) every hour until ctx ends.
func forgetStale(ctx context.Context, users *auth.Users, sessions *auth.Sessions, provider *sso.Provider, logger *slog.Logger) {
	tick := time.NewTicker(time.Hour)
	defer tick.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-tick.C:
			if err := users.ForgetOldFailures(ctx); err != nil {
				logger.Warn("forget old sign-in failures", "err", err)
			}
			if err := sessions.DeleteDead(ctx); err != nil {
				logger.Warn("delete dead sessions", "err", err)
			}
			if provider != nil {
				if err := provider.ForgetExpired(ctx); err != nil {
					logger.Warn("forget unfinished single sign-ons", "err", err)
				}
			}
		}
	}
}
