package deployment_test

import (
	"context"
	"crypto/aes"
	"crypto/cipher"
	"encoding/json"
	"fmt"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/styrmin/styrmin/deployment"
	"github.com/styrmin/styrmin/deployment/deploymenttest"
	"github.com/styrmin/styrmin/secrets"
)

// The attacks on sealed secrets: someone who can write the database, but
// holds no key, moves sealed values around; keys are rotated, and rotations
// interrupted.

// key returns the fixture's secret key.
func key(f deploymenttest.Fixture, t *testing.T) []byte {
	t.Helper()
	key, err := secrets.ParseKey(f.KeyText)
	require.NoError(t, err)
	return key
}

// serviceWithKeys is the fixture's service opening secrets with current and
// previous keys only.
func serviceWithKeys(f deploymenttest.Fixture, t *testing.T, current []byte, previous ...[]byte) (*deployment.Service, *secrets.Box) {
	t.Helper()
	box, err := secrets.NewBox(current, previous...)
	require.NoError(t, err)
	return deployment.New(deployment.Config{Pool: f.Pool, Catalog: f.Catalog, Box: box}), box
}

// exec runs sql on the fixture's database, as an attacker with write access would.
func exec(f deploymenttest.Fixture, t *testing.T, sql string, args ...any) {
	t.Helper()
	_, err := f.Pool.Exec(context.Background(), sql, args...)
	require.NoError(t, err)
}

// newKey returns a new random key.
func newKey(t *testing.T) []byte {
	t.Helper()
	key, err := secrets.ParseKey(secrets.NewKeyText())
	require.NoError(t, err)
	return key
}

func TestSecretsCopiedFromAnotherDeploymentsRowDoNotOpen(t *testing.T) {
	t.Parallel()
	f := deploymenttest.Setup(t, nil)
	ctx := context.Background()
	_, err := f.Svc.Queue(ctx, deploymenttest.Postgres("orders"))
	require.NoError(t, err)
	_, err = f.Svc.Queue(ctx, deploymenttest.Postgres("billing"))
	require.NoError(t, err)

	exec(f, t, `UPDATE deployments SET secrets = (SELECT secrets FROM deployments WHERE name = 'orders') WHERE name = 'billing'`)

	_, err = f.Svc.UpgradeForm(ctx, "billing", "")
	require.ErrorIs(t, err, secrets.ErrWrongKey, "orders' password does not open as billing's")
	_, err = f.Svc.UpgradeForm(ctx, "orders", "")
	require.NoError(t, err, "where it was sealed, it still opens")
}

func TestATasksSecretInputsCopiedIntoItsDeploymentsSecretsDoNotOpen(t *testing.T) {
	t.Parallel()
	f := setupPrompts(t)
	ctx := context.Background()
	install, err := f.Svc.Queue(ctx, redisWithPrompts("cache"))
	require.NoError(t, err)

	exec(f, t, `UPDATE deployments SET secrets = (SELECT secret_inputs FROM tasks WHERE id = $1) WHERE name = 'cache'`, install.TaskID)

	_, err = f.Svc.UpgradeForm(ctx, "cache", "")
	require.ErrorIs(t, err, secrets.ErrWrongKey, "the same deployment's task inputs, in another column, do not open")
}

func TestListsShowWhichSecretsAreSetWithoutOpeningThem(t *testing.T) {
	t.Parallel()
	f := deploymenttest.Setup(t, nil)
	ctx := context.Background()
	_, err := f.Svc.Queue(ctx, deploymenttest.Postgres("orders"))
	require.NoError(t, err)
	exec(f, t, `UPDATE deployments SET secrets = 'not a sealed value'::bytea WHERE name = 'orders'`)

	d, err := f.Svc.Get(ctx, "orders")
	require.NoError(t, err, "the page does not open the secrets")
	require.Equal(t, []string{"password"}, d.SecretsSet)
	list, err := f.Svc.List(ctx, deployment.ListOptions{})
	require.NoError(t, err)
	require.Len(t, list.Items, 1)
	require.Equal(t, []string{"password"}, list.Items[0].SecretsSet)
}

// sealVersion1 seals values as Styrmin did before key ids: a version byte 1,
// a nonce and the ciphertext, the deployment's id as the only label.
func sealVersion1(t *testing.T, key []byte, values map[string]string, deploymentID int64) []byte {
	t.Helper()
	plain, err := json.Marshal(values)
	require.NoError(t, err)
	block, err := aes.NewCipher(key)
	require.NoError(t, err)
	aead, err := cipher.NewGCM(block)
	require.NoError(t, err)
	nonce := make([]byte, aead.NonceSize())
	return aead.Seal(append([]byte{1}, nonce...), nonce, plain, fmt.Appendf(nil, "deployment %d", deploymentID))
}

// oldDatabase installs orders with a secret prompt and turns its sealed
// values into those of a database from before key ids, a revision's
// included, sealed under the fixture's key; it returns the install task's id.
func oldDatabase(t *testing.T, f deploymenttest.Fixture) int64 {
	t.Helper()
	ctx := context.Background()
	install, err := f.Svc.Queue(ctx, redisWithPrompts("orders"))
	require.NoError(t, err)
	d, err := f.Svc.Get(ctx, "orders")
	require.NoError(t, err)
	params := sealVersion1(t, key(f, t), map[string]string{"password": "s3cret-password"}, d.ID)
	exec(f, t, `UPDATE deployments SET secrets = $1, secret_names = NULL WHERE id = $2`, params, d.ID)
	exec(f, t, `INSERT INTO revisions (deployment_id, revision, task_id, driver_version, app_version, parameters, secrets)
		VALUES ($1, 1, $2, '1.5.0', '7.4.0', '{}', $3)`, d.ID, install.TaskID, params)
	exec(f, t, `UPDATE tasks SET secret_inputs = $1 WHERE id = $2`,
		sealVersion1(t, key(f, t), map[string]string{"prompt/seed/api_key": "k3y-s3cret"}, d.ID), install.TaskID)
	return install.TaskID
}

// requireEverythingOpens checks that box opens orders' secrets, its
// revision's and its install task's, each at its place.
func requireEverythingOpens(t *testing.T, f deploymenttest.Fixture, box *secrets.Box, taskID int64) {
	t.Helper()
	ctx := context.Background()
	var id int64
	var params, revision, inputs []byte
	require.NoError(t, f.Pool.QueryRow(ctx, `SELECT d.id, d.secrets, r.secrets, t.secret_inputs
		FROM deployments d JOIN revisions r ON r.deployment_id = d.id JOIN tasks t ON t.id = $1
		WHERE d.name = 'orders'`, taskID).Scan(&id, &params, &revision, &inputs))
	for _, v := range []struct {
		sealed []byte
		at     secrets.Place
		want   map[string]string
	}{
		{params, secrets.At("deployments", "secrets", id).WithV1Label(fmt.Sprintf("deployment %d", id)), map[string]string{"password": "s3cret-password"}},
		{revision, secrets.At("revisions", "secrets", fmt.Sprintf("%d/1", id)).WithV1Label(fmt.Sprintf("deployment %d", id)), map[string]string{"password": "s3cret-password"}},
		{inputs, secrets.At("tasks", "secret_inputs", taskID).WithV1Label(fmt.Sprintf("deployment %d", id)), map[string]string{"prompt/seed/api_key": "k3y-s3cret"}},
	} {
		got, err := box.OpenValues(v.sealed, v.at)
		require.NoError(t, err, v.at.String())
		require.Equal(t, v.want, got, v.at.String())
	}
}

func TestAnOldDatabasesSecretsStillOpenAndTheirNamesAreRecorded(t *testing.T) {
	t.Parallel()
	f := setupPrompts(t)
	ctx := context.Background()
	taskID := oldDatabase(t, f)
	svc, box := serviceWithKeys(f, t, key(f, t))

	requireEverythingOpens(t, f, box, taskID)
	require.NoError(t, deployment.RecordSecretNames(ctx, f.Q, box))
	d, err := svc.Get(ctx, "orders")
	require.NoError(t, err)
	require.Equal(t, []string{"password"}, d.SecretsSet)
}

func TestAfterARotationTheNewKeyAloneOpensEverything(t *testing.T) {
	t.Parallel()
	f := setupPrompts(t)
	ctx := context.Background()
	taskID := oldDatabase(t, f)
	next := newKey(t)
	_, rotating := serviceWithKeys(f, t, next, key(f, t))

	n, err := rotating.ResealAll(ctx, f.Q, deployment.SealedColumns(f.Q, rotating.Header())...)
	require.NoError(t, err)
	require.Equal(t, 3, n, "the deployment's, the revision's and the task's")

	svc, newOnly := serviceWithKeys(f, t, next)
	requireEverythingOpens(t, f, newOnly, taskID)
	_, err = svc.UpgradeForm(ctx, "orders", "")
	require.NoError(t, err)
	n, err = rotating.ResealAll(ctx, f.Q, deployment.SealedColumns(f.Q, rotating.Header())...)
	require.NoError(t, err)
	require.Zero(t, n, "a second rotation to the same key has nothing left to do")
}

func TestARotationInterruptedHalfwayStillOpensWithBothKeysAndFinishesWhenRunAgain(t *testing.T) {
	t.Parallel()
	f := setupPrompts(t)
	ctx := context.Background()
	taskID := oldDatabase(t, f)
	next := newKey(t)
	_, rotating := serviceWithKeys(f, t, next, key(f, t))

	n, err := rotating.ResealAll(ctx, f.Q, deployment.SealedColumns(f.Q, rotating.Header())[0])
	require.ErrorContains(t, err, "2 secrets are still sealed under another key", "a rotation interrupted after the deployments' column says what is left")
	require.Equal(t, 1, n)

	requireEverythingOpens(t, f, rotating, taskID)
	_, newOnly := serviceWithKeys(f, t, next)
	var inputs []byte
	require.NoError(t, f.Pool.QueryRow(ctx, `SELECT secret_inputs FROM tasks WHERE id = $1`, taskID).Scan(&inputs))
	_, err = newOnly.Open(inputs, secrets.At("tasks", "secret_inputs", taskID))
	require.ErrorIs(t, err, secrets.ErrWrongKey, "half-way, the new key alone is not enough")

	n, err = rotating.ResealAll(ctx, f.Q, deployment.SealedColumns(f.Q, rotating.Header())...)
	require.NoError(t, err)
	require.Equal(t, 2, n, "the rest")
	requireEverythingOpens(t, f, newOnly, taskID)
}

func TestARotationWithoutTheOldKeyStopsAtTheFirstValueItCannotOpen(t *testing.T) {
	t.Parallel()
	f := deploymenttest.Setup(t, nil)
	ctx := context.Background()
	_, err := f.Svc.Queue(ctx, deploymenttest.Postgres("orders"))
	require.NoError(t, err)
	_, oldOnly := serviceWithKeys(f, t, key(f, t))
	_, forgotten := serviceWithKeys(f, t, newKey(t))

	_, err = forgotten.ResealAll(ctx, f.Q, deployment.SealedColumns(f.Q, forgotten.Header())...)
	require.ErrorIs(t, err, secrets.ErrWrongKey)
	require.ErrorContains(t, err, "deployments.secrets row")
	require.ErrorContains(t, err, oldOnly.KeyID().String(), "it names the key it needs")
}
