package db_test

import (
	"context"
	_ "embed"
	"encoding/json"
	"go/ast"
	"go/parser"
	"go/token"
	"math"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/styrmin/styrmin/db/dbtest"
)

// history fills a database with a long history (see the file's comment).
//
//go:embed testdata/history.sql
var history string

// historyTables are the tables that grow with history: a query that scans
// one of them costs more every day, whatever page it shows.
var historyTables = []string{
	"tasks", "steps", "step_logs", "action_tokens", "revisions",
	"webhook_deliveries", "webhook_delivery_attempts", "audit_entries",
}

// planCase is a query of queries/*.sql and realistic arguments for it,
// in the order of its parameters ($1, $2, ...), on the database of history.
type planCase struct {
	query string
	args  []any
}

// A page of deployment 7's history, the steps of two tasks on it, and a
// time a month ago (a filter's start, a retention's cut-off).
var (
	pageTaskIDs = []int64{19807, 19607, 19407, 19207, 19007, 18807, 18607, 18407, 18207, 18007}
	pageStepIDs = []int64{79225, 79226, 79227, 79228, 78425, 78426, 78427, 78428}
	aWhileAgo   = time.Now().Add(-30 * 24 * time.Hour)
	// taskOfCancel is a task named by its id in an audit entry's target.
	taskOfCancel = int64(19821)
	// aWebhook is a webhook named by its id in an audit entry's target.
	aWebhook = int64(3)
)

// planCases covers every query that reads a history table (checked by
// TestEveryHistoryQueryIsPlanned). Task 19821 runs (deployment 21, hook
// step 79284), task 19820 waits (deployment 20), and task 19989 started
// task 22221 from its hook step 79956.
var planCases = []planCase{
	// Pages of history.
	{"ListTasks", []any{int64(7), int64(math.MaxInt64), int32(50)}},
	{"ListTasks", []any{int64(7), int64(10007), int32(50)}},
	{"FindTasks", []any{int64(math.MaxInt64), "", "", int32(50)}},
	{"FindTasks", []any{int64(10000), "", "", int32(50)}},
	{"FindTasks", []any{int64(math.MaxInt64), "failed", "", int32(50)}},
	{"FindTasks", []any{int64(math.MaxInt64), "", "install", int32(50)}},
	{"FindTasks", []any{int64(math.MaxInt64), "canceled", "", int32(50)}}, // none: still a page's cost
	{"FindTasks", []any{int64(math.MaxInt64), "", "rollback", int32(50)}},
	{"FindDeploymentTasks", []any{int64(math.MaxInt64), "", "", int32(50), "app-7", false, []int64(nil)}},
	// A member's activity: the page of each of their teams, or of a deployment.
	{"FindTeamTasks", []any{[]int64{1, 7}, int64(math.MaxInt64), "", "", int32(50)}},
	{"FindTeamTasks", []any{[]int64{1}, int64(10000), "failed", "", int32(50)}},
	{"FindTeamTasks", []any{[]int64{7}, int64(math.MaxInt64), "", "", int32(50)}}, // a team of no deployment
	{"FindDeploymentTasks", []any{int64(math.MaxInt64), "", "", int32(50), "app-7", true, []int64{1}}},
	{"FindDeploymentTasks", []any{int64(10000), "", "upgrade", int32(50), "app-7", true, []int64{7}}}, // of another team
	{"ListStepsOfTasks", []any{pageTaskIDs}},
	{"ListStepSummaries", []any{pageTaskIDs}},
	{"ListNestedTasks", []any{pageStepIDs}},
	{"ListStepLogs", []any{pageStepIDs}},
	{"ListSteps", []any{int64(19807)}},
	{"ListDeployments", listDeployments(false, "", "", "", nil, nil, false)},
	{"ListDeployments", listDeployments(true, "", "", "", nil, nil, false)},
	{"ListDeployments", listDeployments(true, "", "", "", nil, nil, true)},
	{"ListDeployments", listDeployments(false, "app-1", "", "", nil, nil, false)},
	{"ListDeployments", listDeployments(false, "", "app", "", nil, nil, true)},
	{"ListDeployments", listDeployments(false, "", "", "ns-7", nil, nil, false)},
	{"ListDeployments", listDeployments(false, "", "", "", []string{"app-7", "app-70"}, []string{"app-8"}, false)},
	{"ListDeployments", ofTeams(listDeployments(false, "", "", "", nil, nil, true), 1, 7)},
	{"ListDeploymentsBefore", listDeploymentsBefore(false, "", "", "", nil, nil)},
	{"ListDeploymentsBefore", ofTeams(listDeploymentsBefore(false, "", "", "", nil, nil), 1, 7)},
	{"ListDeploymentsBefore", listDeploymentsBefore(true, "", "", "", nil, nil)},
	{"ListDeploymentsBefore", listDeploymentsBefore(false, "", "app", "", nil, nil)},
	{"ListDeploymentsBefore", listDeploymentsBefore(false, "", "", "ns-7", nil, nil)},
	{"ListDeploymentsBefore", listDeploymentsBefore(false, "", "", "", []string{"app-7", "app-70"}, []string{"app-8"})},
	{"ListRevisions", []any{int64(7), int32(10)}},
	{"ListDeliveries", []any{int64(1), int32(50)}},
	{"ListDeliveryAttempts", []any{[]int64{100, 101, 102}}},
	{"ListAuditEntries", []any{true, int64(math.MaxInt64), "", "", "", "", "", "", nil, nil, int32(100)}},
	{"ListAuditEntries", []any{false, int64(50000), "", "", "", "", "", "", nil, nil, int32(100)}},
	{"ListAuditEntries", []any{true, int64(math.MaxInt64), "user-3", "deployment", "deployment", "app-7", "allowed", "", &aWhileAgo, nil, int32(100)}},
	{"ListAuditEntries", []any{true, int64(math.MaxInt64), "", "", "", "", "", "a-request-id", nil, nil, int32(100)}},
	{"ListTeamAuditEntries", []any{[]int64{1, 7}, int64(math.MaxInt64), "", "", "", "", "", "", nil, nil, int32(100)}}, // a member's log
	{"ListTeamAuditEntries", []any{[]int64{1}, int64(50000), "user-3", "deployment", "", "", "", "", &aWhileAgo, nil, int32(100)}},
	{"ListTeamAuditEntries", []any{[]int64{7}, int64(math.MaxInt64), "", "", "", "", "", "", nil, nil, int32(100)}}, // of a team with no entry
	// The queue and the hold.
	{"QueueStats", nil},
	{"NextQueuedTask", []any{int64(20)}},
	{"QueuePositions", []any{[]int64{19820, 19821, 19807}}},
	{"StaleTasks", []any{float64(60)}},
	{"TakeOverTask", []any{"worker-1", int64(19821), float64(60)}},
	{"HoldDeployment", []any{int64(19820), int64(20), false, int64(19820)}},
	{"HoldDeployment", []any{int64(19821), int64(21), true, int64(22221)}},
	{"ReleaseDeployment", []any{int64(21), int64(19821)}},
	{"UnfinishedLinkedTasks", []any{int64(19989), int64(0)}},
	{"UnfinishedLinkedTasks", []any{int64(19989), int64(79956)}},
	{"LinkedTaskOrigin", []any{int64(22221)}},
	{"TaskDepth", []any{int64(22221)}},
	// One task, step or row by its key.
	{"GetTask", []any{int64(19821)}},
	{"GetTaskOfDeployment", []any{int64(19821)}},
	{"GetTaskTeam", []any{int64(19821)}},
	{"GetDeploymentTeam", []any{"app-7"}},
	{"LockTask", []any{int64(19821)}},
	{"HoldLease", []any{int64(19821), int64(1)}},
	{"InsertTask", []any{int64(7), "upgrade", []byte("{}"), nil, nil, "admin"}},
	{"SetTaskRoot", []any{int64(19821)}},
	{"SetTaskJob", []any{int64(1), int64(19821)}},
	{"SetTaskSecretInputs", []any{[]byte{0}, int64(19821)}},
	{"StartTask", []any{"worker-1", int64(19820)}},
	{"BeatTask", []any{int64(19821), int64(1)}},
	{"RequestCancel", []any{"admin", int64(19821)}},
	{"FinishTask", []any{"succeeded", []byte("{}"), "", int64(19821)}},
	{"RequeueTask", []any{"", int64(19821)}},
	{"CancelQueuedTask", []any{"", int64(19820)}},
	{"InsertStep", []any{int64(19821), "helm", "upgrade"}},
	{"EndStep", []any{"succeeded", "", []byte("{}"), int64(79284)}},
	{"MergeStepDetail", []any{[]byte("{}"), int64(79284)}},
	{"AddStepDeletedJob", []any{"job", int64(79284)}},
	{"UpdateStepDetail", []any{"", []byte("{}"), int64(79284)}},
	{"EndRunningSteps", []any{"failed", "", int64(19821)}},
	{"InsertStepLog", []any{int64(79284), int32(2), "INFO", "line"}},
	{"InsertActionToken", []any{[]byte{1}, int64(21), int64(19821), int64(79284), time.Now(), "backup", nil}},
	{"GetActionToken", []any{[]byte{1}}},
	{"RevokeActionTokens", []any{int64(79284)}},
	{"RevokeTaskActionTokens", []any{int64(19821)}},
	{"GetRevision", []any{int64(7), int32(3)}},
	{"InsertRevision", []any{int64(7), int32(500), int64(19807), "1.0.0", "1.0", []byte("{}"), nil}},
	{"InsertDelivery", []any{int64(1), int64(7), int64(19807), "succeeded", []byte("{}"), nil}},
	{"GetDelivery", []any{int64(100)}},
	{"DeliveryToSend", []any{int64(100)}},
	{"RecordAttempt", []any{"delivered", int32(200), "", int32(10), int64(100)}},
	{"InsertAuditEntry", []any{nil, nil, "admin", "session", "admin", "", "signin", "user", "admin", "allowed", "", []byte("{}"), "", nil, nil}},
	{"InsertAuditEntry", []any{nil, nil, "admin", "session", "admin", "", "deployment.stop", "deployment", "app-7", "allowed", "", []byte("{}"), "", nil, nil}},
	{"InsertAuditEntry", []any{nil, nil, "admin", "api-token", "admin", "", "deployment.cancel", "deployment", "19821", "refused", "", []byte("{}"), "", &taskOfCancel, nil}},
	{"InsertAuditEntry", []any{nil, nil, "admin", "session", "admin", "", "webhook.update", "webhook", "3", "allowed", "", []byte("{}"), "", nil, &aWebhook}},
	// A deployment's artefacts: its action runs' results, with the prunes after them.
	{"ListDeploymentArtefacts", []any{int64(7), []string{"backup"}, int32(51), []string{"prune"}}},
	// A schedule's overlap check: is the deployment busy?
	{"ActiveTaskOfDeployment", []any{int64(7)}},
	// A schedule's retention: its runs whose task ended, waiting for their prune.
	{"TakeEndedActionScheduleRuns", []any{int32(100)}},
	// The retention.
	{"PruneTaskChains", []any{aWhileAgo, int32(100)}},
	// Secrets rotation, a page at a time.
	{"ListTaskSecretsNotUnder", []any{[]byte{1, 2}, int64(0), int32(100)}},
	{"ResealTaskSecrets", []any{[]byte{1}, int64(19821), []byte{0}}},
	{"ListRevisionSecretsNotUnder", []any{[]byte{1, 2}, int64(0), int32(0), int32(100)}},
	{"ResealRevisionSecrets", []any{[]byte{1}, int64(7), int32(3), []byte{0}}},
}

// listDeployments are ListDeployments' arguments: the filters (only, when
// not nil, keeps those names), from the top or after app-0500.
func listDeployments(deleted bool, query, driver, namespace string, only, except []string, after bool) []any {
	return []any{deleted, query, driver, namespace, only != nil, only, except, false, []int64(nil), after, false, "app-0500", int64(500), int32(101)}
}

// ofTeams is a list's arguments keeping the deployments of teams only, as a
// member's list has them.
func ofTeams(args []any, teams ...int64) []any {
	args = slices.Clone(args)
	args[7], args[8] = true, teams
	return args
}

// listDeploymentsBefore are ListDeploymentsBefore's arguments: the filters
// as listDeployments has them, the page before app-0500.
func listDeploymentsBefore(deleted bool, query, driver, namespace string, only, except []string) []any {
	return []any{deleted, query, driver, namespace, only != nil, only, except, false, []int64(nil), false, "app-0500", int64(500), int32(101)}
}

// unplanned are the queries that read a history table whole by design.
var unplanned = map[string]string{
	"CountSecretsNotUnder": "counts every sealed value once per key rotation (styrmin secrets rotate)",
}

// TestListQueriesUseIndexes explains each query of planCases on a database
// with a long history and fails when a plan reads a history table
// sequentially: what a page costs must not grow with the history.
func TestListQueriesUseIndexes(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	pool := dbtest.New(t)
	_, err := pool.Exec(ctx, history)
	require.NoError(t, err)
	queries := generatedQueries(t)
	for _, c := range planCases {
		sql, ok := queries[c.query]
		require.True(t, ok, "no generated query %s", c.query)
		var plan []byte
		require.NoError(t, pool.QueryRow(ctx, "EXPLAIN (FORMAT JSON) "+sql, c.args...).Scan(&plan), c.query)
		if scanned := seqScans(t, plan); len(scanned) > 0 {
			t.Errorf("%s%v reads %s sequentially:\n%s", c.query, c.args, strings.Join(scanned, ", "), indent(plan))
		}
	}
}

// TestEveryHistoryQueryIsPlanned fails when a query reads a history table
// and neither planCases nor unplanned names it: a new query gets its plan
// checked.
func TestEveryHistoryQueryIsPlanned(t *testing.T) {
	t.Parallel()
	reads := regexp.MustCompile(`(?i)\b(FROM|JOIN|UPDATE|INTO)\s+(` + strings.Join(historyTables, "|") + `)\b`)
	planned := map[string]bool{}
	for _, c := range planCases {
		planned[c.query] = true
	}
	for name, sql := range generatedQueries(t) {
		if reads.MatchString(sql) && !planned[name] && unplanned[name] == "" {
			t.Errorf("%s reads a history table: add it to planCases with realistic arguments", name)
		}
	}
}

// generatedQueries returns the SQL of every query sqlc generated into
// db/*.sql.go, by name: the constants the Queries methods run.
func generatedQueries(t *testing.T) map[string]string {
	t.Helper()
	files, err := filepath.Glob("*.sql.go")
	require.NoError(t, err)
	queries := map[string]string{}
	for _, file := range files {
		f, err := parser.ParseFile(token.NewFileSet(), file, nil, 0)
		require.NoError(t, err)
		ast.Inspect(f, func(n ast.Node) bool {
			lit, ok := n.(*ast.BasicLit)
			if !ok || lit.Kind != token.STRING {
				return true
			}
			sql, err := strconv.Unquote(lit.Value)
			require.NoError(t, err)
			if name, ok := strings.CutPrefix(sql, "-- name: "); ok {
				queries[strings.Fields(name)[0]] = sql
			}
			return true
		})
	}
	require.NotEmpty(t, queries)
	return queries
}

// planNode is the part of a node of EXPLAIN (FORMAT JSON) that the checks
// read; the actual rows and loops are there with ANALYZE only.
type planNode struct {
	NodeType     string     `json:"Node Type"`
	RelationName string     `json:"Relation Name"`
	IndexName    string     `json:"Index Name"`
	ActualRows   float64    `json:"Actual Rows"`
	ActualLoops  float64    `json:"Actual Loops"`
	Plans        []planNode `json:"Plans"`
}

// eachPlanNode calls see with every node of plan, parents first.
func eachPlanNode(t *testing.T, plan []byte, see func(planNode)) {
	t.Helper()
	var top []struct{ Plan planNode }
	require.NoError(t, json.Unmarshal(plan, &top))
	var walk func(n planNode)
	walk = func(n planNode) {
		see(n)
		for _, child := range n.Plans {
			walk(child)
		}
	}
	for _, p := range top {
		walk(p.Plan)
	}
}

// seqScans returns the history tables that plan reads sequentially.
func seqScans(t *testing.T, plan []byte) []string {
	t.Helper()
	var scanned []string
	eachPlanNode(t, plan, func(n planNode) {
		if n.NodeType == "Seq Scan" && slices.Contains(historyTables, n.RelationName) {
			scanned = append(scanned, n.RelationName)
		}
	})
	return scanned
}

// indent returns the JSON plan indented, for a failure message.
func indent(plan []byte) string {
	var v any
	if err := json.Unmarshal(plan, &v); err != nil {
		return string(plan)
	}
	out, _ := json.MarshalIndent(v, "", "  ")
	return string(out)
}
