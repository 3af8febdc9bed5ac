package main

import (
	"context"
	"fmt"
	"maps"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/spf13/cobra"
	"github.com/stretchr/testify/require"

	"github.com/styrmin/styrmin/audit"
	"github.com/styrmin/styrmin/db"
	"github.com/styrmin/styrmin/db/dbtest"
	"github.com/styrmin/styrmin/secrets"
)

// TestEveryCommandLineChangeIsAudited runs each changing command once as it
// succeeds and once as it is refused, and reads the audit log: one entry
// each, made by the command line as an admin, with the outcome and reason.
func TestEveryCommandLineChangeIsAudited(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	pool := dbtest.New(t)
	url := pool.Config().ConnString()
	key, other := secrets.NewKeyText(), secrets.NewKeyText()
	_, err := secrets.OpenBox(ctx, db.New(pool), secrets.KeyConfig{Key: key})
	require.NoError(t, err)
	redis := filepath.Join("..", "..", "drivers", "bundled", "redis")

	for _, step := range []struct {
		cmd     *cobra.Command
		args    []string
		refused bool
	}{
		{newUserCreateCmd(), []string{"--username", "ci", "--role", "operator"}, false},
		{newUserCreateCmd(), []string{"--username", "ci", "--role", "operator"}, true},
		{newTokenCreateCmd(), []string{"--username", "ci"}, false},
		{newTokenRevokeCmd(), []string{"--id", "999"}, true},
		{newDriverImportCmd(), []string{redis}, false},
		{newDriverImportCmd(), []string{"no/such/folder"}, true},
		{newDriverPermissionsCmd(), []string{"redis", "9.9.9", "--approve"}, true},
		{newSecretsRotateCmd(), []string{"--secret-key", other}, true},
		{newSecretsRotateCmd(), []string{"--secret-key", other, "--previous-secret-keys", key}, false},
	} {
		_, stderr, err := runCmd(t, step.cmd, url, step.args...)
		require.Equal(t, step.refused, err != nil, "%s %v: %v %s", step.cmd.Name(), step.args, err, stderr)
	}

	var got []string
	err = audit.NewStore(pool).Each(ctx, audit.Viewer{Admin: true}, audit.Filter{}, func(e audit.Entry) error {
		require.Equal(t, audit.ViaCommandLine, e.Actor.Via, e.Action)
		require.Equal(t, "admin", e.Actor.Role, e.Action)
		require.True(t, strings.HasPrefix(e.Actor.Name, "styrmin command ("), e.Actor.Name)
		detail := make([]string, 0, len(e.Detail))
		for _, k := range slices.Sorted(maps.Keys(e.Detail)) {
			if k != "key_id" { // a new key's id every run
				detail = append(detail, k+"="+e.Detail[k])
			}
		}
		got = append(got, fmt.Sprintf("%s %s:%s [%s] %s: %s", e.Action, e.Target.Kind, e.Target.Name, strings.Join(detail, " "), e.Outcome, e.Reason))
		return nil
	})
	require.NoError(t, err)
	slices.Reverse(got) // Each is newest first
	want := []string{
		"user.create user:ci [] allowed: ",
		"user.create user:ci [] refused: ",
		"token.create token:1 [user=ci] allowed: ",
		"token.revoke token:999 [] refused: There is no API token 999 of yours.",
		"driver.upload driver:redis [path=../../drivers/bundled/redis] allowed: ",
		"driver.upload driver: [path=no/such/folder] refused: Cannot read no/such/folder",
		"driver.approve_permissions driver:redis [version=9.9.9] refused: ",
		"secrets.rotate settings:secret key [] refused: ",
		"secrets.rotate settings:secret key [] allowed: ",
	}
	require.Len(t, got, len(want), strings.Join(got, "\n"))
	for i := range want {
		require.True(t, strings.HasPrefix(got[i], want[i]), "entry %d: %q, want %q…", i, got[i], want[i])
	}
}
