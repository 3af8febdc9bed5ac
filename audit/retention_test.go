package audit_test

import (
	"context"
	"io"
	"log/slog"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/styrmin/styrmin"
	"github.com/styrmin/styrmin/audit"
	"github.com/styrmin/styrmin/db/dbtest"
)

func TestParseRetention(t *testing.T) {
	t.Parallel()
	for in, want := range map[string]time.Duration{"90d": 90 * 24 * time.Hour, "": 90 * 24 * time.Hour, "0": 0, "0d": 0, "36h": 36 * time.Hour, " 7d ": 7 * 24 * time.Hour} {
		got, err := audit.ParseRetention(in)
		require.NoError(t, err, in)
		require.Equal(t, want, got, in)
	}
	for _, in := range []string{"forever", "-1d", "-3h", "1.5d", "d"} {
		_, err := audit.ParseRetention(in)
		require.Equal(t, styrmin.EINVALID, styrmin.ErrorCode(err), in)
	}
}

// TestPruneEveryDeletesWhatOutlivedTheRetention runs the periodic prune and
// waits until the old entry is gone; the new one stays.
func TestPruneEveryDeletesWhatOutlivedTheRetention(t *testing.T) {
	t.Parallel()
	pool := dbtest.New(t)
	s := audit.NewStore(pool)
	ctx, cancel := context.WithCancel(context.Background())
	require.NoError(t, s.Record(ctx, entry("ada", "deployment.install", audit.TargetDeployment, "new")))
	_, err := pool.Exec(ctx, `INSERT INTO audit_entries (at, actor_name, actor_via, actor_role, actor_address, action, target_kind, target_name, outcome, reason)
		VALUES (now() - interval '8 days', 'ada', 'session', 'admin', '', 'deployment.install', 'deployment', 'old', 'allowed', '')`)
	require.NoError(t, err)
	var wg sync.WaitGroup
	wg.Add(1)
	go func() {
		defer wg.Done()
		s.PruneEvery(ctx, 7*24*time.Hour, time.Hour, slog.New(slog.NewTextHandler(io.Discard, nil)))
	}()
	t.Cleanup(func() { cancel(); wg.Wait() })
	require.Eventually(t, func() bool {
		page, err := s.List(context.Background(), audit.Viewer{Admin: true}, audit.Filter{})
		return err == nil && len(page.Entries) == 1 && page.Entries[0].Target.Name == "new"
	}, 30*time.Second, 20*time.Millisecond)
}

// TestPruneEveryKeepsEverythingForARetentionOfZero: 0 means forever.
func TestPruneEveryKeepsEverythingForARetentionOfZero(t *testing.T) {
	t.Parallel()
	pool := dbtest.New(t)
	s := audit.NewStore(pool)
	_, err := pool.Exec(context.Background(), `INSERT INTO audit_entries (at, actor_name, actor_via, actor_role, actor_address, action, target_kind, target_name, outcome, reason)
		VALUES (now() - interval '10 years', 'ada', 'session', 'admin', '', 'signin', 'user', 'ada', 'allowed', '')`)
	require.NoError(t, err)
	// It returns at once, without pruning (a loop would hang the test).
	s.PruneEvery(context.Background(), 0, time.Millisecond, slog.Default())
	page, err := s.List(context.Background(), audit.Viewer{Admin: true}, audit.Filter{})
	require.NoError(t, err)
	require.Len(t, page.Entries, 1)
}
