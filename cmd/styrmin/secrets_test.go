package main

import (
	"context"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/styrmin/styrmin/db"
	"github.com/styrmin/styrmin/db/dbtest"
	"github.com/styrmin/styrmin/secrets"
)

// TestSecretsRotateMovesTheDatabaseToTheNewKey follows the documented
// procedure: rotate with the new key and the old one as a previous key; then
// the new key alone opens the database and the old one alone no longer does.
func TestSecretsRotateMovesTheDatabaseToTheNewKey(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	pool := dbtest.New(t)
	url := pool.Config().ConnString()
	q := db.New(pool)
	old, next := secrets.NewKeyText(), secrets.NewKeyText()
	_, err := secrets.OpenBox(ctx, q, secrets.KeyConfig{Key: old})
	require.NoError(t, err, "the database's first key")

	_, _, err = runCmd(t, newSecretsRotateCmd(), url, "--secret-key", next)
	require.ErrorContains(t, err, "STYRMIN_PREVIOUS_SECRET_KEYS", "without the old key, nothing opens")

	stdout, stderr, err := runCmd(t, newSecretsRotateCmd(), url, "--secret-key", next, "--previous-secret-keys", old)
	require.NoError(t, err, stderr)
	require.Contains(t, stdout, "remove the previous keys")

	_, err = secrets.OpenBox(ctx, q, secrets.KeyConfig{Key: next})
	require.NoError(t, err, "the new key alone opens the database")
	_, err = secrets.OpenBox(ctx, q, secrets.KeyConfig{Key: old})
	require.Error(t, err, "the old key alone no longer does")
}
