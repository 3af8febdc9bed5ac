package audit

import (
	"cmp"
	"context"
	"log/slog"
	"strings"
	"time"

	"github.com/styrmin/styrmin"
)

// DefaultRetention is how long entries are kept unless configured.
const DefaultRetention = "90d"

// ParseRetention reads the audit retention (styrmin.ParseRetention); empty
// is DefaultRetention, as when the setting is not given.
func ParseRetention(s string) (time.Duration, error) {
	return styrmin.ParseRetention("audit retention", cmp.Or(strings.TrimSpace(s), DefaultRetention))
}

// PruneEvery deletes the entries older than retention now and then every
// period until ctx ends; a retention of 0 keeps everything and returns at once.
func (s *Store) PruneEvery(ctx context.Context, retention, period time.Duration, logger *slog.Logger) {
	styrmin.PruneEvery(ctx, retention, period, func(ctx context.Context, before time.Time) {
		n, err := s.Prune(ctx, before)
		switch {
		case err != nil && ctx.Err() == nil:
			logger.Warn("prune the audit log", "err", err)
		case n > 0:
			logger.Info("pruned the audit log", "deleted", n, "retention", retention)
		}
	})
}
