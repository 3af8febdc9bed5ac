package audit

import (
	"cmp"
	"context"
	"log/slog"
	"strconv"
	"strings"
	"time"

	"github.com/styrmin/styrmin"
)

// DefaultRetention is how long entries are kept unless configured.
const DefaultRetention = "90d"

// ParseRetention reads a retention: a number of days ("90d"), a Go
// duration ("36h") or 0, which keeps entries forever (returned as 0); empty
// is DefaultRetention, as when the setting is not given.
func ParseRetention(s string) (time.Duration, error) {
	s = cmp.Or(strings.TrimSpace(s), DefaultRetention)
	bad := styrmin.Errorf(styrmin.EINVALID, "The audit retention %q is not a duration: write days (90d), hours (36h) or 0 to keep entries forever.", s)
	if days, ok := strings.CutSuffix(s, "d"); ok {
		n, err := strconv.Atoi(days)
		if err != nil || n < 0 {
			return 0, bad
		}
		return time.Duration(n) * 24 * time.Hour, nil
	}
	if s == "0" {
		return 0, nil
	}
	d, err := time.ParseDuration(s)
	if err != nil || d < 0 {
		return 0, bad
	}
	return d, nil
}

// PruneEvery deletes the entries older than retention now and then every
// period until ctx ends; a retention of 0 keeps everything and returns at once.
func (s *Store) PruneEvery(ctx context.Context, retention, period time.Duration, logger *slog.Logger) {
	if retention == 0 {
		return
	}
	tick := time.NewTicker(period)
	defer tick.Stop()
	for {
		n, err := s.Prune(ctx, time.Now().Add(-retention))
		switch {
		case err != nil && ctx.Err() == nil:
			logger.Warn("prune the audit log", "err", err)
		case n > 0:
			logger.Info("pruned the audit log", "deleted", n, "retention", retention)
		}
		select {
		case <-ctx.Done():
			return
		case <-tick.C:
		}
	}
}
