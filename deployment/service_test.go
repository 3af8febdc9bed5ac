package deployment_test

import (
	"context"
	"log/slog"
	"testing"
	"time"

	"github.com/jackc/pgx/v5/pgxpool"
	"github.com/stretchr/testify/require"

	"github.com/styrmin/styrmin"
	"github.com/styrmin/styrmin/app/apptest"
	"github.com/styrmin/styrmin/catalog"
	"github.com/styrmin/styrmin/db"
	"github.com/styrmin/styrmin/deployment"
	"github.com/styrmin/styrmin/executor"
	"github.com/styrmin/styrmin/kube"
	"github.com/styrmin/styrmin/release"
	"k8s.io/client-go/rest"
)

// fixture is what a service test works with: a Styrmin built by app.New
// (apptest).
type fixture struct {
	env     *apptest.Env
	svc     *deployment.Service
	dbURL   string
	keyText string
	pool    *pgxpool.Pool
	q       *db.Queries
	catalog *catalog.Catalog
}

// setup returns a service on a fresh database holding the bundled drivers,
// whose tasks nothing works. cluster may be nil (no cluster configured).
func setup(t testing.TB, cluster *deployment.Cluster) fixture {
	t.Helper()
	return newFixture(t, apptest.Options{Cluster: cluster})
}

// newFixture returns the fixture of the environment opts describe.
func newFixture(t testing.TB, opts apptest.Options) fixture {
	t.Helper()
	env := apptest.New(t, opts)
	return fixture{env: env, svc: env.Deployments, dbURL: env.DatabaseURL, keyText: env.SecretKey,
		pool: env.Pool, q: db.New(env.Pool), catalog: env.Catalog}
}

// deadCluster is a cluster that does not answer: calls to it fail within a second.
func deadCluster(t testing.TB) *deployment.Cluster {
	t.Helper()
	config := &rest.Config{Host: "https://127.0.0.1:1", Timeout: time.Second}
	client, err := kube.New(config)
	require.NoError(t, err)
	cluster, err := deployment.NewCluster(client, deployment.ClusterOptions{}, slog.Default())
	require.NoError(t, err)
	return cluster
}

// helloWeb is a valid install of the bundled Hello Web driver.
func helloWeb(name string) *deployment.Install {
	return &deployment.Install{
		Driver: "hello-web", DriverVersion: "1.0.0", Name: name, AppVersion: "1.27.0",
		Parameters: deployment.FormInput{"site_title": "Shop", "replicas": "2"}, By: "alice",
	}
}

// postgres is a valid install of the bundled PostgreSQL driver.
func postgres(name string) *deployment.Install {
	return &deployment.Install{
		Driver: "postgresql", DriverVersion: "1.0.0", Name: name, AppVersion: "16.4.0",
		Parameters: deployment.FormInput{"password": "s3cret-password"}, By: "alice",
	}
}

// redis is a valid install of the bundled Redis driver.
func redis(name string) *deployment.Install {
	return &deployment.Install{
		Driver: "redis", DriverVersion: "1.0.0", Name: name, AppVersion: "7.4.0",
		Parameters: deployment.FormInput{"password": "s3cret-password"}, By: "alice",
	}
}

// fieldsOf returns the per-field messages of an EINVALID error.
func fieldsOf(t *testing.T, err error) map[string]string {
	t.Helper()
	require.Equal(t, styrmin.EINVALID, styrmin.ErrorCode(err), "%v", err)
	var e *styrmin.Error
	require.ErrorAs(t, err, &e)
	return e.Fields
}

func TestInstallFormStartsFromDefaultsAndTheChartsAppVersion(t *testing.T) {
	t.Parallel()
	f := setup(t, nil)
	form, err := f.svc.InstallForm(context.Background(), "postgresql", "")
	require.NoError(t, err)
	require.Equal(t, "16.4.0", form.AppVersion)
	require.Equal(t, []string{"1.0.0"}, form.DriverVersions)
	require.Equal(t, "app", form.Values["database"])
	require.NotContains(t, form.Values, "password", "a secret field starts blank")
}

func TestInstallQueuesATaskWithTheDeployment(t *testing.T) {
	t.Parallel()
	f := setup(t, nil)
	ctx := context.Background()
	queued, err := f.svc.Queue(ctx, postgres("orders"))
	require.NoError(t, err)
	require.Equal(t, "orders", queued.Deployment)

	d, err := f.svc.Get(ctx, "orders")
	require.NoError(t, err)
	require.Equal(t, "orders", d.Namespace, "the namespace defaults to the name")
	require.Equal(t, deployment.StatusPending, d.Status)
	require.Equal(t, "app", d.Parameters["database"])
	require.NotContains(t, d.Parameters, "password")
	require.Equal(t, []string{"password"}, d.SecretsSet)
	require.True(t, d.Busy == false, "nothing holds it until a worker takes the task")

	task, err := f.svc.Task(ctx, "orders", queued.TaskID)
	require.NoError(t, err)
	require.Equal(t, deployment.KindInstall, task.Kind)
	require.Equal(t, executor.TaskQueued, task.Status)
	require.Equal(t, "alice", task.By)
	require.Equal(t, "16.4.0", task.Inputs["app_version"])

	var stored []byte
	require.NoError(t, f.pool.QueryRow(ctx, `SELECT secrets FROM deployments WHERE name = 'orders'`).Scan(&stored))
	require.NotContains(t, string(stored), "s3cret-password", "secret values are encrypted at rest")
	var inputs string
	require.NoError(t, f.pool.QueryRow(ctx, `SELECT inputs::text FROM tasks WHERE id = $1`, queued.TaskID).Scan(&inputs))
	require.NotContains(t, inputs, "s3cret-password", "a task's inputs never hold a secret")
}

func TestInstallRefusesBadValuesFieldByField(t *testing.T) {
	t.Parallel()
	f := setup(t, nil)
	ctx := context.Background()
	req := postgres("Bad_Name")
	req.AppVersion = "18.0.0"
	req.Parameters = deployment.FormInput{"storage_gib": "0"}
	fields := fieldsOf(t, func() error { _, err := f.svc.Queue(ctx, req); return err }())
	require.Equal(t, map[string]string{
		"name":              "the name must be lower-case letters, digits and '-', starting with a letter and ending with a letter or digit",
		"app_version":       "version 18.0.0 is not supported by driver postgresql 1.0.0, which supports >=14.0.0, <18.0.0",
		"param.password":    "Superuser password is required",
		"param.storage_gib": "0 is less than the minimum 1",
	}, fields)

	long := postgres("a23456789-123456789-123456789-123456789-1234567890")
	fields = fieldsOf(t, func() error { _, err := f.svc.Queue(ctx, long); return err }())
	require.Equal(t, "the name has 50 characters; at most 49 are allowed", fields["name"])

	_, err := f.svc.Queue(ctx, postgres("orders"))
	require.NoError(t, err)
	fields = fieldsOf(t, func() error { _, err := f.svc.Queue(ctx, postgres("orders")); return err }())
	require.Equal(t, "a deployment named orders exists; choose another name or delete it first", fields["name"])
}

func TestUpgradeReviewTokenCarriesSecretsSealedAndGoesStale(t *testing.T) {
	t.Parallel()
	f := setup(t, nil)
	ctx := context.Background()
	_, err := f.svc.Queue(ctx, redis("orders"))
	require.NoError(t, err)

	form, err := f.svc.UpgradeForm(ctx, "orders", "")
	require.NoError(t, err)
	require.Equal(t, "2", form.Values["replicas"])
	require.NotContains(t, form.Values, "password")

	req := &deployment.Upgrade{Name: "orders", Parameters: deployment.FormInput{"password": "new-s3cret-password", "replicas": "1"}, By: "alice"}
	review, err := f.svc.Review(ctx, req)
	require.NoError(t, err)
	require.Contains(t, review.DryRunError, "No Kubernetes cluster is configured", "the review says why it has no manifest diff")
	require.NotContains(t, review.Token, "new-s3cret-password")
	changes := map[string]release.Change{}
	for _, c := range review.Changes {
		changes[c.Name] = c.Kind
		if c.Secret {
			require.Empty(t, c.Old+c.New, "a secret's values are never in a review")
		}
	}
	require.Equal(t, release.Changed, changes["password"])
	require.Equal(t, release.Changed, changes["replicas"])
	require.Equal(t, release.Unchanged, changes["persistence"])

	edit, err := f.svc.EditUpgrade(ctx, review.Token, "alice")
	require.NoError(t, err)
	require.Equal(t, "1", edit.Values["replicas"], "Back keeps the entered values")

	_, err = f.svc.Queue(ctx, deployment.ConfirmUpgrade{Token: review.Token, By: "mallory"})
	require.ErrorContains(t, err, "made by another user")
	_, err = f.svc.Queue(ctx, deployment.ConfirmUpgrade{Token: review.Token[:len(review.Token)-2], By: "alice"})
	require.ErrorContains(t, err, "This review is not valid")

	queued, err := f.svc.Queue(ctx, deployment.ConfirmUpgrade{Token: review.Token, By: "alice"})
	require.NoError(t, err)
	task, err := f.svc.Task(ctx, "orders", queued.TaskID)
	require.NoError(t, err)
	require.ElementsMatch(t, []any{"password", "replicas"}, task.Inputs["changed"])

	_, err = f.pool.Exec(ctx, `UPDATE deployments SET app_version = '7.4.1' WHERE name = 'orders'`)
	require.NoError(t, err)
	_, err = f.svc.Queue(ctx, deployment.ConfirmUpgrade{Token: review.Token, By: "alice"})
	require.ErrorContains(t, err, "changed since this review")
}

func TestUpgradeRefusesACraftedChangeOfAnImmutableParameter(t *testing.T) {
	t.Parallel()
	f := setup(t, nil)
	ctx := context.Background()
	_, err := f.svc.Queue(ctx, postgres("orders"))
	require.NoError(t, err)
	_, err = f.svc.Review(ctx, &deployment.Upgrade{Name: "orders", Parameters: deployment.FormInput{"database": "stolen"}, By: "alice"})
	require.Equal(t, "Database name cannot change after install; it stays app", fieldsOf(t, err)["param.database"])
	_, err = f.svc.Review(ctx, &deployment.Upgrade{Name: "orders", Parameters: deployment.FormInput{"database": "app", "password": "another-password"}, By: "alice"})
	require.Equal(t, "Superuser password cannot change after install", fieldsOf(t, err)["param.password"])
	_, err = f.svc.Review(ctx, &deployment.Upgrade{Name: "orders", Parameters: deployment.FormInput{"database": "app"}, AppVersion: "19.0.0", By: "alice"})
	require.Contains(t, fieldsOf(t, err)["app_version"], "not supported")
}

func TestOperationsCheckTheirInputs(t *testing.T) {
	t.Parallel()
	f := setup(t, nil)
	ctx := context.Background()
	queued, err := f.svc.Queue(ctx, helloWeb("site"))
	require.NoError(t, err)

	_, err = f.svc.Queue(ctx, &deployment.Rollback{Name: "site", Revision: 3, By: "alice"})
	require.ErrorContains(t, err, "has no revision 3")
	_, err = f.svc.Queue(ctx, &deployment.Stop{Name: "site", Components: []string{"db"}, By: "alice"})
	require.ErrorContains(t, err, `has no component "db"; it has web`)
	_, err = f.svc.Queue(ctx, &deployment.Delete{Name: "site", Confirm: "sight", By: "alice"})
	require.Equal(t, "type site to confirm", fieldsOf(t, err)["confirm"])
	_, err = f.svc.Queue(ctx, &deployment.Stop{Name: "nope", By: "alice"})
	require.Equal(t, styrmin.ENOTFOUND, styrmin.ErrorCode(err))

	stop, err := f.svc.Queue(ctx, &deployment.Stop{Name: "site", By: "alice"})
	require.NoError(t, err)
	tasks, next, err := f.svc.Tasks(ctx, mustGet(t, f, "site").ID, 0, 1)
	require.NoError(t, err)
	require.Equal(t, stop.TaskID, tasks[0].ID, "newest first")
	require.Equal(t, 1, tasks[0].QueuePosition, "the install waits before it")
	require.Equal(t, stop.TaskID, next)
	older, next, err := f.svc.Tasks(ctx, mustGet(t, f, "site").ID, next, 1)
	require.NoError(t, err)
	require.Equal(t, queued.TaskID, older[0].ID)
	require.Zero(t, next, "no more pages")

	require.NoError(t, f.svc.CancelTask(ctx, "site", stop.TaskID, "bob"))
	task, err := f.svc.Task(ctx, "site", stop.TaskID)
	require.NoError(t, err)
	require.Equal(t, executor.TaskCanceled, task.Status)
	require.Equal(t, "Cancelled by bob before it started.", task.Message)
	require.ErrorContains(t, f.svc.CancelTask(ctx, "site", stop.TaskID, "bob"), "has ended; there is nothing to cancel")
}

// startLinked queues op as an operation the action of c starts (Linked) and
// returns its task's id.
func startLinked(ctx context.Context, f fixture, c *deployment.Caller, op deployment.LinkedOperation) (int64, error) {
	q, err := f.svc.Queue(ctx, deployment.Linked{Caller: c, Op: op})
	if err != nil {
		return 0, err
	}
	return q.TaskID, nil
}

func mustGet(t *testing.T, f fixture, name string) *deployment.Deployment {
	t.Helper()
	d, err := f.svc.Get(context.Background(), name)
	require.NoError(t, err)
	return d
}

func TestLiveSaysPlainlyWhenTheClusterDoesNotAnswer(t *testing.T) {
	t.Parallel()
	f := setup(t, deadCluster(t))
	ctx := context.Background()
	_, err := f.svc.Queue(ctx, helloWeb("site"))
	require.NoError(t, err)

	live := f.svc.Live(ctx, mustGet(t, f, "site"), nil)
	require.Contains(t, live.Err, "The Kubernetes cluster does not answer")
	require.Empty(t, live.Components)

	none := setup(t, nil)
	_, err = none.svc.Queue(ctx, helloWeb("site"))
	require.NoError(t, err)
	require.Contains(t, none.svc.Live(ctx, mustGet(t, none, "site"), nil).Err, "No Kubernetes cluster is configured")
}

func TestActionsStartLinkedTasksButNoUpgradeLoop(t *testing.T) {
	t.Parallel()
	f := setup(t, nil)
	ctx := context.Background()
	install, err := f.svc.Queue(ctx, redis("cache"))
	require.NoError(t, err)
	review, err := f.svc.Review(ctx, &deployment.Upgrade{Name: "cache", Parameters: deployment.FormInput{"replicas": "1"}, By: "alice"})
	require.NoError(t, err)
	upgrade, err := f.svc.Queue(ctx, deployment.ConfirmUpgrade{Token: review.Token, By: "alice"})
	require.NoError(t, err)
	d := mustGet(t, f, "cache")
	caller := func(taskID int64) *deployment.Caller {
		step, err := f.q.InsertStep(ctx, db.InsertStepParams{TaskID: taskID, Kind: deployment.StepHook, Title: "an action"})
		require.NoError(t, err)
		return &deployment.Caller{DeploymentID: d.ID, TaskID: taskID, StepID: step.ID}
	}

	fromUpgrade := caller(upgrade.TaskID)
	_, err = startLinked(ctx, f, fromUpgrade, &deployment.Upgrade{AppVersion: "7.4.1"})
	require.Equal(t, styrmin.ECONFLICT, styrmin.ErrorCode(err))
	require.ErrorContains(t, err, "cannot start another upgrade of it")

	stop, err := startLinked(ctx, f, fromUpgrade, &deployment.Stop{Components: []string{"replica"}})
	require.NoError(t, err)
	task, err := f.svc.LinkedTask(ctx, fromUpgrade, stop)
	require.NoError(t, err)
	require.Equal(t, deployment.KindStop, task.Kind)
	row, err := f.q.GetTask(ctx, stop)
	require.NoError(t, err)
	require.Equal(t, fromUpgrade.StepID, *row.ParentStepID, "linked to the calling step")
	require.Equal(t, upgrade.TaskID, *row.RootTaskID, "sharing its chain's hold on the deployment")
	_, err = startLinked(ctx, f, fromUpgrade, &deployment.Stop{Components: []string{"nope"}})
	require.ErrorContains(t, err, `has no component "nope"`)

	fromInstall := caller(install.TaskID)
	_, err = f.svc.LinkedTask(ctx, fromInstall, stop)
	require.Equal(t, styrmin.ENOTFOUND, styrmin.ErrorCode(err), "a step reads only the tasks it started")
	linkedUpgrade, err := startLinked(ctx, f, fromInstall, &deployment.Upgrade{AppVersion: "7.4.1"})
	require.NoError(t, err, "an install's action may upgrade")
	task, err = f.svc.LinkedTask(ctx, fromInstall, linkedUpgrade)
	require.NoError(t, err)
	require.Equal(t, "7.4.1", task.Inputs["app_version"])
	_, err = startLinked(ctx, f, fromInstall, &deployment.Upgrade{AppVersion: "8.0.0"})
	require.Contains(t, styrmin.ErrorFields(err)["app_version"], "not supported")
}
