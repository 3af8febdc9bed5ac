package audit_test

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"
	"github.com/stretchr/testify/require"

	"github.com/styrmin/styrmin"
	"github.com/styrmin/styrmin/audit"
	"github.com/styrmin/styrmin/db/dbtest"
)

// entry is an allowed change by name to a target.
func entry(name, action, kind, target string) audit.Entry {
	return audit.Entry{
		Actor:  audit.Actor{UserID: 1, Name: name, Via: audit.ViaSession, Role: "admin", Address: "192.0.2.7"},
		Action: action, Target: audit.Target{Kind: kind, Name: target}, Outcome: audit.Allowed,
		Detail: map[string]string{"name": target},
	}
}

// actions lists the actions of a page's entries, newest first.
func actions(page audit.Page) []string {
	var out []string
	for _, e := range page.Entries {
		out = append(out, e.Action+" "+e.Target.Name)
	}
	return out
}

// setup returns a store on a fresh database with a few entries: two
// deployment changes, a sign-in and a user creation.
func setup(t *testing.T) *audit.Store {
	t.Helper()
	s := audit.NewStore(dbtest.New(t))
	for _, e := range []audit.Entry{
		entry("ada", "deployment.install", audit.TargetDeployment, "shop"),
		entry("bob", "deployment.upgrade", audit.TargetDeployment, "blog"),
		entry("ada", "signin", audit.TargetUser, "ada"),
		entry("ada", "user.create", audit.TargetUser, "carl"),
	} {
		require.NoError(t, s.Record(context.Background(), e))
	}
	return s
}

func TestListFiltersNewestFirst(t *testing.T) {
	t.Parallel()
	s := setup(t)
	ctx := context.Background()
	admin := audit.Viewer{Admin: true}
	refused := entry("eve", "signin", audit.TargetUser, "eve")
	refused.Outcome, refused.Reason, refused.Actor.TokenID = audit.Refused, "Unauthorized", 9
	require.NoError(t, s.Record(ctx, refused))
	all := []string{"signin eve", "user.create carl", "signin ada", "deployment.upgrade blog", "deployment.install shop"}
	for _, tc := range []struct {
		name   string
		filter audit.Filter
		want   []string
	}{
		{"everything", audit.Filter{}, all},
		{"who", audit.Filter{Actor: "bob"}, []string{"deployment.upgrade blog"}},
		{"action family", audit.Filter{Action: "deployment"}, []string{"deployment.upgrade blog", "deployment.install shop"}},
		{"one action", audit.Filter{Action: "deployment.install"}, []string{"deployment.install shop"}},
		{"target", audit.Filter{TargetKind: audit.TargetUser, TargetName: "carl"}, []string{"user.create carl"}},
		{"outcome", audit.Filter{Outcome: audit.Refused}, []string{"signin eve"}},
		{"time range before everything", audit.Filter{Until: time.Now().Add(-time.Hour)}, nil},
		{"time range around everything", audit.Filter{Since: time.Now().Add(-time.Hour), Until: time.Now().Add(time.Hour)}, all},
	} {
		page, err := s.List(ctx, admin, tc.filter)
		require.NoError(t, err, tc.name)
		require.Equal(t, tc.want, actions(page), tc.name)
	}
	page, err := s.List(ctx, admin, audit.Filter{Actor: "ada", Action: "signin"})
	require.NoError(t, err)
	require.Len(t, page.Entries, 1)
	e := page.Entries[0]
	require.Equal(t, audit.Actor{UserID: 1, Name: "ada", Via: audit.ViaSession, Role: "admin", Address: "192.0.2.7"}, e.Actor)
	require.Equal(t, map[string]string{"name": "ada"}, e.Detail)
	require.WithinDuration(t, time.Now(), e.At, time.Minute)
	page, err = s.List(ctx, admin, audit.Filter{Actor: "eve"})
	require.NoError(t, err)
	require.Equal(t, int64(9), page.Entries[0].Actor.TokenID, "the API token's id is kept")
}

func TestParseTimeReadsWhatPeopleType(t *testing.T) {
	t.Parallel()
	for in, want := range map[string]time.Time{
		"":                          {},
		"2026-12-01":                time.Date(2026, 12, 1, 0, 0, 0, 0, time.UTC),
		"2026-12-01T09:30":          time.Date(2026, 12, 1, 9, 30, 0, 0, time.UTC),
		"2026-12-01T09:30:15":       time.Date(2026, 12, 1, 9, 30, 15, 0, time.UTC),
		"2026-12-01T09:30:00+02:00": time.Date(2026, 12, 1, 7, 30, 0, 0, time.UTC),
	} {
		got, err := audit.ParseTime(in)
		require.NoError(t, err, in)
		require.True(t, want.Equal(got), "%s: %s", in, got)
	}
	_, err := audit.ParseTime("last tuesday")
	require.Equal(t, styrmin.EINVALID, styrmin.ErrorCode(err))
}

func TestListPagesByCursor(t *testing.T) {
	t.Parallel()
	s := setup(t)
	var all []string
	f := audit.Filter{Limit: 3}
	for {
		page, err := s.List(context.Background(), audit.Viewer{Admin: true}, f)
		require.NoError(t, err)
		all = append(all, actions(page)...)
		if page.Next == 0 {
			break
		}
		f.Before = page.Next
	}
	require.Equal(t, []string{"user.create carl", "signin ada", "deployment.upgrade blog", "deployment.install shop"}, all)
}

func TestListRefusesBadFilters(t *testing.T) {
	t.Parallel()
	s := setup(t)
	for _, f := range []audit.Filter{
		{Limit: audit.MaxPage + 1},
		{Limit: -1},
		{Action: "%"},
		{Outcome: "maybe"},
		{Since: time.Now(), Until: time.Now().Add(-time.Hour)},
	} {
		_, err := s.List(context.Background(), audit.Viewer{Admin: true}, f)
		require.Equal(t, styrmin.EINVALID, styrmin.ErrorCode(err), "%+v", f)
	}
}

// TestOnlyAdminsSeeSigninsAndUserAdministration: anyone else sees the
// entries about deployments and no addresses, whatever they ask for.
func TestOnlyAdminsSeeSigninsAndUserAdministration(t *testing.T) {
	t.Parallel()
	s := setup(t)
	ctx := context.Background()
	for _, f := range []audit.Filter{{}, {Action: "signin"}, {TargetKind: audit.TargetUser}, {Actor: "ada"}} {
		page, err := s.List(ctx, audit.Viewer{}, f)
		require.NoError(t, err)
		for _, e := range page.Entries {
			require.Equal(t, audit.TargetDeployment, e.Target.Kind, "%+v shows a non-admin %s", f, e.Action)
			require.Empty(t, e.Actor.Address, "a non-admin sees no addresses")
		}
	}
	page, err := s.List(ctx, audit.Viewer{}, audit.Filter{})
	require.NoError(t, err)
	require.Equal(t, []string{"deployment.upgrade blog", "deployment.install shop"}, actions(page))
}

// TestEntriesCommitWithTheirTransaction: an entry written in a transaction
// that rolls back is not in the log.
func TestEntriesCommitWithTheirTransaction(t *testing.T) {
	t.Parallel()
	pool := dbtest.New(t)
	s := audit.NewStore(pool)
	ctx := context.Background()
	for _, commit := range []bool{false, true} {
		tx, err := pool.Begin(ctx)
		require.NoError(t, err)
		require.NoError(t, audit.Record(ctx, tx, entry("ada", "namespace_policy.update", audit.TargetPolicy, "namespaces")))
		if commit {
			require.NoError(t, tx.Commit(ctx))
		} else {
			require.NoError(t, tx.Rollback(ctx))
		}
	}
	page, err := s.List(ctx, audit.Viewer{Admin: true}, audit.Filter{})
	require.NoError(t, err)
	require.Len(t, page.Entries, 1, "only the committed transaction's entry")
}

// TestEntriesCannotBeChanged performs the attacks on the log: updating an
// entry, deleting it, truncating the table; each is refused.
func TestEntriesCannotBeChanged(t *testing.T) {
	t.Parallel()
	pool := dbtest.New(t)
	s := audit.NewStore(pool)
	ctx := context.Background()
	require.NoError(t, s.Record(ctx, entry("mallory", "user.update", audit.TargetUser, "mallory")))
	for _, attack := range []string{
		`UPDATE audit_entries SET actor_name = 'ada'`,
		`DELETE FROM audit_entries`,
		`TRUNCATE audit_entries`,
	} {
		_, err := pool.Exec(ctx, attack)
		require.ErrorContains(t, err, "append-only", attack)
	}
	page, err := s.List(ctx, audit.Viewer{Admin: true}, audit.Filter{})
	require.NoError(t, err)
	require.Equal(t, []string{"user.update mallory"}, actions(page))
}

func TestPruneDeletesOnlyOldEntries(t *testing.T) {
	t.Parallel()
	pool := dbtest.New(t)
	s := audit.NewStore(pool)
	ctx := context.Background()
	require.NoError(t, s.Record(ctx, entry("ada", "deployment.install", audit.TargetDeployment, "new")))
	_, err := pool.Exec(ctx, `INSERT INTO audit_entries (at, actor_name, actor_via, actor_role, actor_address, action, target_kind, target_name, outcome, reason)
		VALUES (now() - interval '100 days', 'ada', 'session', 'admin', '', 'deployment.install', 'deployment', 'old', 'allowed', '')`)
	require.NoError(t, err)
	n, err := s.Prune(ctx, time.Now().Add(-90*24*time.Hour))
	require.NoError(t, err)
	require.EqualValues(t, 1, n)
	page, err := s.List(ctx, audit.Viewer{Admin: true}, audit.Filter{})
	require.NoError(t, err)
	require.Equal(t, []string{"deployment.install new"}, actions(page))
	// The prune's permission ends with it.
	_, err = pool.Exec(ctx, `DELETE FROM audit_entries`)
	require.ErrorContains(t, err, "append-only")
}

func TestEachWalksEveryPage(t *testing.T) {
	t.Parallel()
	s := setup(t)
	var n int
	require.NoError(t, s.Each(context.Background(), audit.Viewer{Admin: true}, audit.Filter{Actor: "ada"}, func(audit.Entry) error { n++; return nil }))
	require.Equal(t, 3, n)
	stop := errors.New("stop")
	require.ErrorIs(t, s.Each(context.Background(), audit.Viewer{Admin: true}, audit.Filter{}, func(audit.Entry) error { return stop }), stop)
}

// TestAMemberReadsTheirTeamsEntriesPageByPage: a member's log is the entries
// of their teams, newest first across the teams, a page at a time; no
// filter reaches another team's entries or an admin's; a member of no team
// reads nothing.
func TestAMemberReadsTheirTeamsEntriesPageByPage(t *testing.T) {
	t.Parallel()
	pool := dbtest.New(t)
	s := audit.NewStore(pool)
	ctx := context.Background()
	var alpha, beta int64
	require.NoError(t, pool.QueryRow(ctx, `WITH t AS (INSERT INTO teams (name) VALUES ('alpha'), ('beta'), ('gamma') RETURNING id, name)
		SELECT (SELECT id FROM t WHERE name = 'alpha'), (SELECT id FROM t WHERE name = 'beta')`).Scan(&alpha, &beta))
	for _, e := range []audit.Entry{
		entry("ada", "team.create", audit.TargetTeam, "alpha"),
		entry("ada", "team.create", audit.TargetTeam, "beta"),
		entry("ada", "team.rename", audit.TargetTeam, "alpha"),
		entry("ada", "signin", audit.TargetUser, "ada"),
		entry("ada", "team.rename", audit.TargetTeam, "beta"),
		entry("ada", "team.create", audit.TargetTeam, "gamma"),
	} {
		require.NoError(t, s.Record(ctx, e))
	}
	var all []string
	f := audit.Filter{Limit: 2}
	for pages := 0; ; pages++ {
		require.Less(t, pages, 3, "two pages of two and one of none left")
		page, err := s.List(ctx, audit.Viewer{Teams: []int64{alpha, beta}}, f)
		require.NoError(t, err)
		all = append(all, actions(page)...)
		for _, e := range page.Entries {
			require.Empty(t, e.Actor.Address, "a member sees no addresses")
		}
		if page.Next == 0 {
			break
		}
		f.Before = page.Next
	}
	require.Equal(t, []string{"team.rename beta", "team.rename alpha", "team.create beta", "team.create alpha"}, all)
	page, err := s.List(ctx, audit.Viewer{Teams: []int64{beta}}, audit.Filter{Action: "team.create"})
	require.NoError(t, err)
	require.Equal(t, []string{"team.create beta"}, actions(page), "filters hold for a member")
	for _, crafted := range []audit.Filter{{TargetName: "gamma"}, {TargetKind: audit.TargetUser}, {Action: "signin"}, {Actor: "ada", TargetKind: audit.TargetTeam, TargetName: "gamma"}} {
		page, err := s.List(ctx, audit.Viewer{Teams: []int64{alpha, beta}}, crafted)
		require.NoError(t, err)
		require.Empty(t, page.Entries, "%+v reaches past the member's teams", crafted)
	}
	page, err = s.List(ctx, audit.Viewer{Teams: []int64{}}, audit.Filter{})
	require.NoError(t, err)
	require.Empty(t, page.Entries, "a member of no team")
}

// TestTheLogIsPlannedForEachRead: the log's queries are never prepared
// statements, which PostgreSQL would switch after five runs to one generic
// plan for every filter (db.CustomPlans): after many reads on a pool of one
// connection, that connection has none of them prepared.
func TestTheLogIsPlannedForEachRead(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	cfg, err := pgxpool.ParseConfig(dbtest.NewURL(t))
	require.NoError(t, err)
	cfg.MaxConns = 1
	pool, err := pgxpool.NewWithConfig(ctx, cfg)
	require.NoError(t, err)
	defer pool.Close()
	prepared := func() (n int) {
		// The simple protocol: this count prepares nothing itself.
		require.NoError(t, pool.QueryRow(ctx, `SELECT count(*) FROM pg_prepared_statements WHERE statement LIKE '%audit_entries%'`,
			pgx.QueryExecModeSimpleProtocol).Scan(&n))
		return n
	}
	s := audit.NewStore(pool)
	for range 7 {
		for _, v := range []audit.Viewer{{Admin: true}, {}, {Teams: []int64{1}}} {
			_, err := s.List(ctx, v, audit.Filter{})
			require.NoError(t, err)
		}
	}
	require.Zero(t, prepared())
	// The same count sees a query on the log that pgx prepared.
	_, err = pool.Exec(ctx, `SELECT count(*) FROM audit_entries WHERE id > $1`, 0)
	require.NoError(t, err)
	require.Equal(t, 1, prepared())
}
