package db_test

import (
	"os/exec"
	"testing"

	"github.com/stretchr/testify/require"
)

// TestGeneratedQueriesAreCurrent fails when queries/*.sql or the migrations
// changed without `go tool -modfile=tools/go.mod sqlc generate`.
func TestGeneratedQueriesAreCurrent(t *testing.T) {
	t.Parallel()
	cmd := exec.Command("go", "tool", "-modfile=tools/go.mod", "sqlc", "diff")
	cmd.Dir = ".." // the module root, where sqlc.yaml is
	out, err := cmd.CombinedOutput()
	require.NoError(t, err, "the sqlc output in db/ is stale; run `make generate` and commit the result:\n%s", out)
}
