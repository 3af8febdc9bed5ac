package schedule_test

import (
	"context"
	"log/slog"
	"sync"
	"testing"
	"time"

	"github.com/jackc/pgx/v5/pgxpool"
	"github.com/stretchr/testify/require"

	"github.com/styrmin/styrmin/app/apptest"
	"github.com/styrmin/styrmin/auth"
	"github.com/styrmin/styrmin/deployment"
	"github.com/styrmin/styrmin/deployment/deploymenttest"
	"github.com/styrmin/styrmin/drivers/bundled/bundledtest"
	"github.com/styrmin/styrmin/schedule"
	"github.com/styrmin/styrmin/secrets"
)

// backupAction is the manual action of the Redis copy the tests schedule:
// a plain prompt with a default and a required secret one; its runs make
// artefacts that prune deletes (prune takes the retention and shares keep).
const backupAction = `
- name: backup
  title: Back up
  hook: manual
  function: "actions:backup"
  artefacts: {prune: prune}
  prompts:
    - {name: keep, type: integer, default: 7, min: 1, max: 30}
    - {name: token, type: secret, required: true}
- name: prune
  title: Prune
  hook: manual
  function: "actions:prune"
  prompts:
    - {name: keep_last, type: integer, default: 7, min: 0, max: 100}
    - {name: keep_days, type: integer, default: 0, min: 0}
    - {name: keep, type: integer, default: 7}
`

// backupPy is its Python module.
const backupPy = `
def backup(keep, token):
    pass

def prune(keep_last, keep_days, keep):
    pass
`

// secretToken is the secret prompt value the tests schedule with.
const secretToken = "t0ken-s3cret-9431"

// clock is a fake clock the service and the runners read.
type clock struct {
	mu  sync.Mutex
	now time.Time
}

// Now is the clock's time.
func (c *clock) Now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.now
}

// Set sets the clock.
func (c *clock) Set(t time.Time) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.now = t
}

// bundle is what a schedule test works with: a Styrmin whose tasks nothing
// works, holding the deployment "cache" (Redis with backupAction, idle), an
// operator "olga", the schedules and a runner on a fake clock.
type bundle struct {
	env    *apptest.Env
	pool   *pgxpool.Pool
	box    *secrets.Box
	clock  *clock
	svc    *schedule.Service
	runner *schedule.Runner
	olga   auth.User
}

// setup builds the bundle.
func setup(t *testing.T) *bundle {
	t.Helper()
	return setupWith(t, backupAction, backupPy)
}

// setupWith builds the bundle whose Redis copy has the actions of
// actionsYAML, written in actionsPy.
func setupWith(t *testing.T, actionsYAML, actionsPy string) *bundle {
	t.Helper()
	ctx := context.Background()
	env := apptest.New(t, apptest.Options{NoServer: true})
	_, err := env.Catalog.ImportFS(ctx, bundledtest.Copy(t, "redis", "1.6.0", actionsYAML, actionsPy), ".", "test")
	require.NoError(t, err)
	install := deploymenttest.Redis("cache")
	install.DriverVersion = "1.6.0"
	queued, err := env.Deployments.Queue(ctx, install)
	require.NoError(t, err)
	finish(t, env.Pool, queued.TaskID)
	olga, err := env.Users.Create(ctx, auth.NewUser{Username: "olga", Password: "olga-password-1", Role: auth.Operator})
	require.NoError(t, err)
	box := boxOf(t, env.SecretKey)
	c := &clock{now: time.Date(2026, 3, 1, 9, 0, 0, 0, time.UTC)}
	b := &bundle{env: env, pool: env.Pool, box: box, clock: c, olga: olga,
		svc: schedule.NewService(env.Pool, env.Deployments, box), runner: newRunner(env, box, c)}
	b.svc.Now = c.Now
	return b
}

// newRunner is a runner of env's process on the fake clock c.
func newRunner(env *apptest.Env, box *secrets.Box, c *clock) *schedule.Runner {
	r := schedule.NewRunner(env.Pool, env.Deployments, box, slog.Default())
	r.Now = c.Now
	return r
}

// boxOf is the secrets box of a key's text.
func boxOf(t *testing.T, keyText string) *secrets.Box {
	t.Helper()
	key, err := secrets.ParseKey(keyText)
	require.NoError(t, err)
	box, err := secrets.NewBox(key)
	require.NoError(t, err)
	return box
}

// finish marks a task succeeded, as if a worker had run it.
func finish(t *testing.T, pool *pgxpool.Pool, id int64) {
	t.Helper()
	_, err := pool.Exec(context.Background(), `UPDATE tasks SET status = 'succeeded', ended_at = now(), secret_inputs = NULL WHERE id = $1`, id)
	require.NoError(t, err)
}

// create schedules backup on cache every hour (UTC) with the secret token,
// by olga, with the given policies.
func (b *bundle) create(t *testing.T, overlap schedule.Overlap, missed schedule.Missed) int64 {
	t.Helper()
	id, err := b.svc.Create(context.Background(), schedule.Create{Deployment: "cache", Action: "backup", Cron: "0 * * * *", Zone: "UTC",
		Overlap: overlap, Missed: missed, Prompts: deployment.JSONInput{"keep": 3, "token": secretToken}, Author: b.olga.ID})
	require.NoError(t, err)
	return id
}

// actionTasks counts the action tasks of cache.
func (b *bundle) actionTasks(t *testing.T) int {
	t.Helper()
	var n int
	require.NoError(t, b.pool.QueryRow(context.Background(), `SELECT count(*) FROM tasks WHERE kind = 'action'`).Scan(&n))
	return n
}

// only returns the one schedule of cache.
func (b *bundle) only(t *testing.T) schedule.Schedule {
	t.Helper()
	list, err := b.svc.List(context.Background(), "cache")
	require.NoError(t, err)
	require.Len(t, list, 1)
	return list[0]
}
