package styrmin

import (
	"context"
	"strconv"
	"strings"
	"time"
)

// ParseRetention reads how long something is kept: a number of days
// ("90d"), a Go duration ("36h") or 0, which keeps it forever (returned as
// 0). what names the setting in the error, such as "audit retention".
func ParseRetention(what, s string) (time.Duration, error) {
	s = strings.TrimSpace(s)
	bad := Errorf(EINVALID, "The %s %q is not a duration: write days (90d), hours (36h) or 0 to keep everything.", what, s)
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

// PruneEvery calls prune with the time before which things outlived
// retention, now and then every period until ctx ends; a retention of 0
// keeps everything and returns at once. prune says itself what it did.
func PruneEvery(ctx context.Context, retention, period time.Duration, prune func(ctx context.Context, before time.Time)) {
	if retention == 0 {
		return
	}
	Every(ctx, period, func(ctx context.Context) { prune(ctx, time.Now().Add(-retention)) })
}

// Every calls work now and then every period until ctx ends: the loop of
// each periodic job of a worker process (prunes, schedules, sources).
func Every(ctx context.Context, period time.Duration, work func(ctx context.Context)) {
	tick := time.NewTicker(period)
	defer tick.Stop()
	for {
		work(ctx)
		select {
		case <-ctx.Done():
			return
		case <-tick.C:
		}
	}
}
