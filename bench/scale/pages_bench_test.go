package scale_test

import (
	"context"
	"fmt"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/styrmin/styrmin/audit"
	"github.com/styrmin/styrmin/auth"
	"github.com/styrmin/styrmin/bench/scale"
	"github.com/styrmin/styrmin/handlers/handlerstest"
)

// baselines are measured in turns with every page: the cheapest route, and
// one that makes a single PostgreSQL round trip (/readyz pings the database;
// the server has no cluster to check).
var baselines = []string{"/healthz", "/readyz"}

// busiest is the deployment whose pages are measured: the first filled, with
// as many tasks as any other.
const busiest = "scale-0001"

// page is a read measured at each size, by a client of its kind.
type page struct {
	name, path string
	env        *handlerstest.BenchEnv
}

// BenchmarkPages measures the pages and API reads of issue 32 with a short
// and a long history (scale.Short and scale.Long: the same 1,000 deployments
// with 1,000 and 100,000 ended tasks), each beside the baselines in the same
// run, as read-only users (a signed-in browser; a script with an API token),
// and as a member of one of the 50 teams (issue 35: visibility in SQL).
//
//	go test -run '^$' -bench Pages -benchtime 1000x -timeout 30m ./bench/scale/
func BenchmarkPages(b *testing.B) {
	for _, size := range []scale.Size{scale.Short, scale.Long} {
		b.Run(fmt.Sprintf("tasks=%d", size.Tasks), func(b *testing.B) {
			for _, p := range pagesOf(b, size) {
				b.Run(p.name, func(b *testing.B) { p.env.Compare(b, p.path, baselines...) })
			}
		})
	}
}

// pagesOf starts a server on a database holding size's history and returns
// the reads to measure on it.
func pagesOf(b *testing.B, size scale.Size) []page {
	b.Helper()
	env := handlerstest.NewCatalogEnv(b)
	require.NoError(b, scale.Fill(context.Background(), env.Pool, size, scale.Driver{Name: "hello-web", Version: "1.0.0"}))
	browser := handlerstest.SignedInBench(b, env, auth.ReadOnly)
	script := handlerstest.TokenBench(b, env, "script", auth.ReadOnly)
	member := handlerstest.SignedInBench(b, env, auth.Member)
	memberScript := handlerstest.TokenBench(b, env, "member-script", auth.Member)
	for _, name := range []string{"member-user", "member-script"} {
		joinFirstTeam(b, env, name)
	}
	var teamEntries int
	require.NoError(b, env.Pool.QueryRow(context.Background(),
		`SELECT count(*) FROM audit_entries a JOIN teams t ON t.id = a.team_id WHERE t.name = $1`, scale.FirstTeam).Scan(&teamEntries))
	require.GreaterOrEqual(b, teamEntries, audit.DefaultPage, "the member's audit log is a full page at every size")
	return []page{
		{"deployments", "/deployments", browser},
		// A search that one deployment matches walks every deployment's
		// name (the worst case of the filters); a driver filter reads its
		// index; the API's page of 50 with a filter.
		{"deployments-search", "/deployments?q=0042", browser},
		{"deployments-driver", "/deployments?driver=hello-web", browser},
		{"api-deployments-search", "/api/v1/deployments?q=scale-00", script},
		{"deployment", "/deployments/" + busiest, browser},
		{"tasks", "/tasks", browser},
		{"api-tasks", "/api/v1/tasks", script},
		{"task", fmt.Sprintf("/deployments/%s/tasks/%d", busiest, newestTask(b, env, busiest)), browser},
		{"audit", "/audit", browser},
		// A member of scale-team-01 (operator there): 20 of the 1,000
		// deployments and their history are theirs.
		{"member-deployments", "/deployments", member},
		{"member-deployment", "/deployments/" + busiest, member},
		{"member-tasks", "/tasks", member},
		{"member-api-tasks", "/api/v1/tasks", memberScript},
		{"member-audit", "/audit", member},
	}
}

// joinFirstTeam makes the user named username an operator of the team of
// the busiest deployment.
func joinFirstTeam(b *testing.B, env *handlerstest.CatalogEnv, username string) {
	b.Helper()
	ctx := context.Background()
	u, err := env.Users.GetByUsername(ctx, username)
	require.NoError(b, err)
	require.NoError(b, env.Teams.SetMember(ctx, scale.FirstTeam, u.ID, auth.Operator))
}

// newestTask is the id of the newest task of the deployment named name.
func newestTask(b *testing.B, env *handlerstest.CatalogEnv, name string) int64 {
	b.Helper()
	var id int64
	require.NoError(b, env.Pool.QueryRow(context.Background(),
		`SELECT max(t.id) FROM tasks t JOIN deployments d ON d.id = t.deployment_id WHERE d.name = $1`, name).Scan(&id))
	return id
}
