package main

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

func TestAnnounceDatabase(t *testing.T) {
	t.Parallel()
	var out strings.Builder
	private := "postgres://postgres@/styrmin?host=%2Fsrc%2F.dev%2Fpostgres&port=5432&sslmode=disable"
	announceDatabase(&out, private, true)
	require.Contains(t, out.String(), "database: "+private+"\n")
	require.Contains(t, out.String(), "STYRMIN_DATABASE_URL='"+private+"' go run ./cmd/styrmin token create --username admin\n", "quoted for the shell: the URL holds '&'")

	out.Reset()
	announceDatabase(&out, "postgres://styrmin:hunter2@db:5432/styrmin", false)
	require.Contains(t, out.String(), "database: postgres://styrmin:xxxxx@db:5432/styrmin\n")
	require.NotContains(t, out.String(), "hunter2", "a configured password is not printed")
}
