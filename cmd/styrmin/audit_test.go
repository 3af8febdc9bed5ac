package main

import (
	"context"
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/styrmin/styrmin/audit"
	"github.com/styrmin/styrmin/db/dbtest"
)

// TestAuditExportWritesJSONLines exports the log, all of it and a time
// range of it, and reads each line back.
func TestAuditExportWritesJSONLines(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	pool := dbtest.New(t)
	url := pool.Config().ConnString()
	_, err := pool.Exec(ctx, `INSERT INTO audit_entries (at, actor_name, actor_via, actor_role, actor_address, action, target_kind, target_name, outcome, reason)
		VALUES ('2026-01-10T12:00:00Z', 'ada', 'session', 'admin', '192.0.2.1', 'signin', 'user', 'ada', 'allowed', '')`)
	require.NoError(t, err)
	require.NoError(t, audit.NewStore(pool).Record(ctx, audit.Entry{
		Actor: audit.Actor{UserID: 3, TokenID: 12, Name: "bob", Via: audit.ViaAPIToken, Role: "operator"}, Action: "deployment.install",
		Target: audit.Target{Kind: audit.TargetDeployment, Name: "shop"}, Outcome: audit.Refused, Reason: "No such driver.",
	}))
	export := func(args ...string) []audit.Entry {
		stdout, stderr, err := runCmd(t, newAuditExportCmd(), url, args...)
		require.NoError(t, err, stderr)
		var out []audit.Entry
		for _, line := range strings.Split(strings.TrimSuffix(stdout, "\n"), "\n") {
			if line == "" {
				continue
			}
			var e audit.Entry
			require.NoError(t, json.Unmarshal([]byte(line), &e), line)
			out = append(out, e)
		}
		return out
	}
	all := export()
	require.Len(t, all, 2)
	require.Equal(t, "deployment.install", all[0].Action, "newest first")
	require.Equal(t, audit.Refused, all[0].Outcome)
	require.Equal(t, "No such driver.", all[0].Reason)
	require.Equal(t, int64(12), all[0].Actor.TokenID, "an entry names the API token it was made with")
	require.Equal(t, audit.Actor{Name: "ada", Via: audit.ViaSession, Role: "admin", Address: "192.0.2.1"}, all[1].Actor)
	require.True(t, all[1].At.Equal(time.Date(2026, 1, 10, 12, 0, 0, 0, time.UTC)))

	january := export("--since", "2026-01-01", "--until", "2026-02-01T00:00:00Z")
	require.Len(t, january, 1)
	require.Equal(t, "signin", january[0].Action)
	require.Empty(t, export("--until", "2026-01-01"))

	_, _, err = runCmd(t, newAuditExportCmd(), url, "--since", "last tuesday")
	require.ErrorContains(t, err, "--since")
}
