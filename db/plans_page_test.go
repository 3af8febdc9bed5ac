package db_test

import (
	"context"
	"math"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/styrmin/styrmin/db/dbtest"
)

// TestAPageReadsAPageInEveryPlan runs the queries of the deployments and
// task lists, of what they show of each task, and of the audit log on the
// long history (its 200 deployments spread over teams 1 and 2, their audit
// entries too, and four log lines for each hook step) under EXPLAIN
// ANALYZE: first as a prepared statement's first run (a custom plan, made
// for its values), then in the generic plan PostgreSQL switches a prepared
// statement to after five runs (pgx prepares every query but those run
// through db.CustomPlans, which get custom plans only). In both the rows
// read from history tables stay within what the page shows: its tasks (for
// a member, a page per team or per deployment of the name, then the page),
// their steps, their log lines, its entries, however deep the page and
// however long the history. planCases' plans, with values, cannot see a
// generic plan that reads a whole table, nor a custom one that does so only
// for a page of many steps.
func TestAPageReadsAPageInEveryPlan(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	pool := dbtest.New(t)
	_, err := pool.Exec(ctx, history+`
INSERT INTO teams (name) VALUES ('beta');
UPDATE deployments SET team_id = (SELECT id FROM teams WHERE name = 'beta') WHERE id % 2 = 0;
DELETE FROM step_logs;
INSERT INTO step_logs (step_id, seq, level, message)
SELECT s.id, l, 'INFO', 'line' FROM steps s, generate_series(1, 4) l WHERE s.kind = 'hook';
ALTER TABLE audit_entries DISABLE TRIGGER audit_entries_append_only;
UPDATE audit_entries a SET team_id = d.team_id FROM deployments d WHERE a.target_kind = 'deployment' AND d.name = a.target_name;
ALTER TABLE audit_entries ENABLE TRIGGER audit_entries_append_only;
ANALYZE;`)
	require.NoError(t, err)
	queries := generatedQueries(t)
	const page = 21
	// 60 tasks of 4 steps, two of them hook steps of 4 log lines.
	longPage := make([]int64, 60)
	for i := range longPage {
		longPage[i] = int64(19800 - i)
	}
	// a page of 10 tasks has 40 steps; pageStepIDs has two hook steps, and
	// step 79956 started a task.
	// The page before app-50 (names here are app-1 to app-200).
	beforeApp50 := slices.Clone(listDeploymentsBefore(false, "", "", "", nil, nil))
	beforeApp50[10], beforeApp50[11] = "app-50", int64(50)
	for _, c := range []struct {
		name  string
		query string
		args  []any
		bound int
	}{
		{"a deployment's page deep in its history", "ListTasks", []any{int64(8), int64(10008), int32(page)}, page + 4*page}, // and its steps, counted
		{"everyone's newest page", "FindTasks", []any{int64(math.MaxInt64), "", "", int32(page)}, page},
		{"everyone's page deep in the history", "FindTasks", []any{int64(10000), "", "", int32(page)}, page},
		{"everyone's failed tasks", "FindTasks", []any{int64(math.MaxInt64), "failed", "", int32(page)}, page},
		{"a deployment's page, by its name", "FindDeploymentTasks", []any{int64(math.MaxInt64), "", "", int32(page), "app-8", false, []int64(nil)}, page + page},
		{"a member's newest page, of both their teams", "FindTeamTasks", []any{[]int64{1, 2}, int64(math.MaxInt64), "", "", int32(page)}, 2*page + page},
		{"a member's page deep in their team's history", "FindTeamTasks", []any{[]int64{2}, int64(10000), "", "", int32(page)}, page + page},
		{"a member's newest upgrades", "FindTeamTasks", []any{[]int64{1}, int64(math.MaxInt64), "", "upgrade", int32(page)}, page + page},
		// Each step, and at most a log line and a task of it (has it some?).
		{"the steps of a page", "ListStepsOfTasks", []any{pageTaskIDs}, 3 * 40},
		{"the steps of a long page", "ListStepsOfTasks", []any{longPage}, 3 * 240},
		{"the summaries of a page", "ListStepSummaries", []any{pageTaskIDs}, 40},
		{"the logs of a page's steps", "ListStepLogs", []any{pageStepIDs}, 2 * 4},
		{"the tasks a page's steps started", "ListNestedTasks", []any{append([]int64{79956}, pageStepIDs...)}, 1},
		// The three tasks, and the one queued before the queued one.
		{"the queue positions of a page", "QueuePositions", []any{[]int64{19820, 19821, 19807}}, 3 + 1},
		// A page of 101 deployments (of 200) reads the newest task of each.
		{"the deployments list", "ListDeployments", listDeployments(false, "", "", "", nil, nil, false), 101},
		{"a member's deployments list", "ListDeployments", ofTeams(listDeployments(false, "", "", "", nil, nil, false), 2), 101},
		{"the deployments list, backwards", "ListDeploymentsBefore", beforeApp50, 101},
		{"a member's page of a deployment of their team", "FindDeploymentTasks", []any{int64(math.MaxInt64), "", "", int32(page), "app-8", true, []int64{2}}, page + page},
		{"the audit log", "ListAuditEntries", []any{true, int64(math.MaxInt64), "", "", "", "", "", "", nil, nil, int32(page)}, page},
		{"the audit log deep in its history", "ListAuditEntries", []any{true, int64(50000), "", "", "", "", "", "", nil, nil, int32(page)}, page},
		// A team's entries are one in six of the log.
		{"a member's audit log, of both their teams", "ListTeamAuditEntries", []any{[]int64{1, 2}, int64(math.MaxInt64), "", "", "", "", "", "", nil, nil, int32(page)}, 2 * page},
		{"a member's audit log deep in their team's history", "ListTeamAuditEntries", []any{[]int64{2}, int64(50000), "", "", "", "", "", "", nil, nil, int32(page)}, page},
	} {
		t.Run(c.name, func(t *testing.T) {
			conn, err := pool.Acquire(ctx)
			require.NoError(t, err)
			defer conn.Release()
			defer conn.Exec(ctx, "DISCARD ALL") //nolint:errcheck // the next user of the connection gets it as new
			_, err = conn.Exec(ctx, "PREPARE page_query AS "+queries[c.query])
			require.NoError(t, err)
			custom := historyRead(t, conn, c.args)
			assert.Positive(t, custom, "the page is not empty")
			assert.LessOrEqual(t, custom, c.bound, "rows of history read in the custom plan")
			if runThroughCustomPlans[c.query] {
				return
			}
			_, err = conn.Exec(ctx, "SET plan_cache_mode = force_generic_plan")
			require.NoError(t, err)
			generic := historyRead(t, conn, c.args)
			assert.LessOrEqual(t, generic, c.bound, "rows of history read in the generic plan")
		})
	}
}

// runThroughCustomPlans are the queries that run through db.CustomPlans
// only (audit.Store's), so never in a generic plan. They must not: with
// their nine optional filters, a generic plan guesses that one entry
// matches, and once the log's rows are not in the order of their ids (as in
// this test's log, whose teams were set after it was written) it reads and
// sorts the whole log for a page.
var runThroughCustomPlans = map[string]bool{"ListAuditEntries": true, "ListTeamAuditEntries": true}

// historyRead runs the prepared statement page_query with args under
// EXPLAIN ANALYZE and returns how many rows its plan read from the history
// tables, over every loop of every node that reads one.
func historyRead(t *testing.T, conn *pgxpool.Conn, args []any) int {
	t.Helper()
	var plan []byte
	require.NoError(t, conn.QueryRow(context.Background(),
		"EXPLAIN (ANALYZE, FORMAT JSON) EXECUTE page_query("+placeholders(len(args))+")",
		append([]any{pgx.QueryExecModeSimpleProtocol}, args...)...).Scan(&plan))
	read := 0
	eachPlanNode(t, plan, func(n planNode) {
		if slices.Contains(historyTables, n.RelationName) {
			read += int(n.ActualRows * n.ActualLoops)
		}
	})
	return read
}

// placeholders returns "$1, $2, ..." up to $n.
func placeholders(n int) string {
	p := make([]string, n)
	for i := range p {
		p[i] = "$" + strconv.Itoa(i+1)
	}
	return strings.Join(p, ", ")
}
