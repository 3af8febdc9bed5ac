package db_test

import (
	"context"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/styrmin/styrmin/db/dbtest"
)

// manyDeployments fills a database with 20,000 deployments of 50 drivers
// in 400 namespaces, a task each, so that reading the deployments whole
// costs far more than a page through an index.
const manyDeployments = `
INSERT INTO driver_versions (name, version, title, spec, digest, bundle)
SELECT 'drv-' || i, '1.0.0', 'Driver ' || i, '{}', 'sha256:' || i, '\x00' FROM generate_series(1, 50) i;
INSERT INTO deployments (name, namespace, driver_name, driver_version, app_version, created_by)
SELECT 'app-' || i, 'ns-' || i % 400, 'drv-' || 1 + i % 50, '1.0.0', '1.0', 'admin' FROM generate_series(1, 20000) i;
INSERT INTO tasks (deployment_id, kind, status, root_task_id, created_by)
SELECT id, 'install', 'succeeded', id, 'admin' FROM deployments;
ANALYZE;
`

// TestDeploymentsListFiltersUseTheirIndexes explains a page of the
// deployments list filtered by driver and by namespace, from the top and
// after a key, among 20,000 deployments: the first page reads its filter's
// index in the list's order, and no plan reads the deployments
// sequentially. A later page walks deployments_list_idx from its key,
// whatever the filter: PostgreSQL estimates a row comparison by its first
// column alone, (deleted_at IS NOT NULL) > false, which it takes for no
// row; such a page reads at most every deployment after the key in that
// index (docs/performance.md).
func TestDeploymentsListFiltersUseTheirIndexes(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	pool := dbtest.New(t)
	_, err := pool.Exec(ctx, manyDeployments)
	require.NoError(t, err)
	sql := generatedQueries(t)["ListDeployments"]
	for _, c := range []struct {
		args  []any
		index string
	}{
		{listDeployments(false, "", "drv-7", "", nil, nil, false), "deployments_driver_list_idx"},
		{listDeployments(true, "", "drv-7", "", nil, nil, true), "deployments_list_idx"},
		{listDeployments(false, "", "", "ns-7", nil, nil, false), "deployments_namespace_list_idx"},
		{listDeployments(true, "", "", "ns-7", nil, nil, true), "deployments_list_idx"},
		{listDeployments(false, "app-1", "", "", nil, nil, false), "deployments_list_idx"},
		{listDeployments(false, "", "", "", nil, []string{"app-1", "app-2"}, true), "deployments_list_idx"},
	} {
		var plan []byte
		require.NoError(t, pool.QueryRow(ctx, "EXPLAIN (FORMAT JSON) "+sql, c.args...).Scan(&plan))
		require.Equal(t, []string{c.index}, deploymentIndexes(t, plan), "%v:\n%s", c.args, indent(plan))
	}
}

// TestDeploymentsListPreviousPageWalksTheIndexBackwards explains the page
// before a key (Previous), filtered and not, among 20,000 deployments: it
// walks deployments_list_idx backwards from the key, as the next page walks
// it forwards, and never reads the deployments sequentially.
func TestDeploymentsListPreviousPageWalksTheIndexBackwards(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	pool := dbtest.New(t)
	_, err := pool.Exec(ctx, manyDeployments)
	require.NoError(t, err)
	sql := generatedQueries(t)["ListDeploymentsBefore"]
	for _, args := range [][]any{
		listDeploymentsBefore(false, "", "", "", nil, nil),
		listDeploymentsBefore(true, "", "", "", nil, nil),
		listDeploymentsBefore(false, "", "drv-7", "", nil, nil),
		listDeploymentsBefore(false, "", "", "ns-7", nil, nil),
		listDeploymentsBefore(false, "app-1", "", "", nil, nil),
		listDeploymentsBefore(false, "", "", "", nil, []string{"app-1", "app-2"}),
	} {
		var plan []byte
		require.NoError(t, pool.QueryRow(ctx, "EXPLAIN (FORMAT JSON) "+sql, args...).Scan(&plan))
		require.Equal(t, []string{"deployments_list_idx"}, deploymentIndexes(t, plan), "%v:\n%s", args, indent(plan))
		require.Contains(t, string(plan), `"Scan Direction": "Backward"`, "%v:\n%s", args, indent(plan))
	}
}

// deploymentIndexes returns the indexes of the deployments table that plan
// reads, and "Seq Scan" where it reads the table itself.
func deploymentIndexes(t *testing.T, plan []byte) []string {
	t.Helper()
	var read []string
	eachPlanNode(t, plan, func(n planNode) {
		switch {
		case n.NodeType == "Seq Scan" && n.RelationName == "deployments":
			read = append(read, n.NodeType)
		case strings.HasPrefix(n.IndexName, "deployments_"):
			read = append(read, n.IndexName)
		}
	})
	return read
}
