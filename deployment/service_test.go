package deployment_test

import (
	"context"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/styrmin/styrmin"
	"github.com/styrmin/styrmin/db"
	"github.com/styrmin/styrmin/deployment"
	"github.com/styrmin/styrmin/deployment/deploymenttest"
	"github.com/styrmin/styrmin/executor"
	"github.com/styrmin/styrmin/release"
)

func TestInstallFormStartsFromDefaultsAndTheChartsAppVersion(t *testing.T) {
	t.Parallel()
	f := deploymenttest.Setup(t, nil)
	form, err := f.Svc.InstallForm(context.Background(), "postgresql", "")
	require.NoError(t, err)
	require.Equal(t, "16.4.0", form.AppVersion)
	require.Equal(t, []string{"1.2.0"}, form.DriverVersions)
	require.Equal(t, "app", form.Values["database"])
	require.NotContains(t, form.Values, "password", "a secret field starts blank")
}

func TestInstallQueuesATaskWithTheDeployment(t *testing.T) {
	t.Parallel()
	f := deploymenttest.Setup(t, nil)
	ctx := context.Background()
	queued, err := f.Svc.Queue(ctx, deploymenttest.Postgres("orders"))
	require.NoError(t, err)
	require.Equal(t, "orders", queued.Deployment)

	d, err := f.Svc.Get(ctx, "orders")
	require.NoError(t, err)
	require.Equal(t, "orders", d.Namespace, "the namespace defaults to the name")
	require.Equal(t, deployment.StatusPending, d.Status)
	require.Equal(t, "app", d.Parameters["database"])
	require.NotContains(t, d.Parameters, "password")
	require.Equal(t, []string{"password"}, d.SecretsSet)
	require.True(t, d.Busy == false, "nothing holds it until a worker takes the task")

	task, err := f.Svc.Task(ctx, "orders", queued.TaskID)
	require.NoError(t, err)
	require.Equal(t, deployment.KindInstall, task.Kind)
	require.Equal(t, executor.TaskQueued, task.Status)
	require.Equal(t, "alice", task.By)
	require.Equal(t, "16.4.0", deploymenttest.Inputs[*deployment.InstallInputs](t, task).AppVersion)

	var stored []byte
	require.NoError(t, f.Pool.QueryRow(ctx, `SELECT secrets FROM deployments WHERE name = 'orders'`).Scan(&stored))
	require.NotContains(t, string(stored), "s3cret-password", "secret values are encrypted at rest")
	var inputs string
	require.NoError(t, f.Pool.QueryRow(ctx, `SELECT inputs::text FROM tasks WHERE id = $1`, queued.TaskID).Scan(&inputs))
	require.NotContains(t, inputs, "s3cret-password", "a task's inputs never hold a secret")
}

func TestInstallRefusesBadValuesFieldByField(t *testing.T) {
	t.Parallel()
	f := deploymenttest.Setup(t, nil)
	ctx := context.Background()
	req := deploymenttest.Postgres("Bad_Name")
	req.AppVersion = "18.0.0"
	req.Parameters = deployment.FormInput{"storage_gib": "0"}
	fields := deploymenttest.FieldsOf(t, func() error { _, err := f.Svc.Queue(ctx, req); return err }())
	require.Equal(t, map[string]string{
		"name":              "the name must be lower-case letters, digits and '-', starting with a letter and ending with a letter or digit",
		"app_version":       "version 18.0.0 is not supported by driver postgresql 1.2.0, which supports >=14.0.0, <18.0.0",
		"param.password":    "Superuser password is required",
		"param.storage_gib": "0 is less than the minimum 1",
	}, fields)

	long := deploymenttest.Postgres("a23456789-123456789-123456789-123456789-1234567890")
	fields = deploymenttest.FieldsOf(t, func() error { _, err := f.Svc.Queue(ctx, long); return err }())
	require.Equal(t, "the name has 50 characters; at most 49 are allowed", fields["name"])

	_, err := f.Svc.Queue(ctx, deploymenttest.Postgres("orders"))
	require.NoError(t, err)
	fields = deploymenttest.FieldsOf(t, func() error { _, err := f.Svc.Queue(ctx, deploymenttest.Postgres("orders")); return err }())
	require.Equal(t, "a deployment named orders exists; choose another name or delete it first", fields["name"])
}

func TestUpgradeReviewTokenCarriesSecretsSealedAndGoesStale(t *testing.T) {
	t.Parallel()
	f := deploymenttest.Setup(t, nil)
	ctx := context.Background()
	_, err := f.Svc.Queue(ctx, deploymenttest.Redis("orders"))
	require.NoError(t, err)

	form, err := f.Svc.UpgradeForm(ctx, "orders", "")
	require.NoError(t, err)
	require.Equal(t, "2", form.Values["replicas"])
	require.NotContains(t, form.Values, "password")

	req := &deployment.Upgrade{Name: "orders", Parameters: deployment.FormInput{"password": "new-s3cret-password", "replicas": "1"}, By: "alice"}
	review, err := f.Svc.Review(ctx, req)
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

	edit, err := f.Svc.EditUpgrade(ctx, review.Token, "alice")
	require.NoError(t, err)
	require.Equal(t, "1", edit.Values["replicas"], "Back keeps the entered values")

	_, err = f.Svc.Queue(ctx, deployment.ConfirmUpgrade{Token: review.Token, By: "mallory"})
	require.ErrorContains(t, err, "made by another user")
	_, err = f.Svc.Queue(ctx, deployment.ConfirmUpgrade{Token: review.Token[:len(review.Token)-2], By: "alice"})
	require.ErrorContains(t, err, "This review is not valid")

	queued, err := f.Svc.Queue(ctx, deployment.ConfirmUpgrade{Token: review.Token, By: "alice"})
	require.NoError(t, err)
	task, err := f.Svc.Task(ctx, "orders", queued.TaskID)
	require.NoError(t, err)
	require.ElementsMatch(t, []string{"password", "replicas"}, deploymenttest.Inputs[*deployment.UpgradeInputs](t, task).Changed)

	_, err = f.Pool.Exec(ctx, `UPDATE deployments SET app_version = '7.4.1' WHERE name = 'orders'`)
	require.NoError(t, err)
	_, err = f.Svc.Queue(ctx, deployment.ConfirmUpgrade{Token: review.Token, By: "alice"})
	require.ErrorContains(t, err, "changed since this review")
}

func TestUpgradeRefusesACraftedChangeOfAnImmutableParameter(t *testing.T) {
	t.Parallel()
	f := deploymenttest.Setup(t, nil)
	ctx := context.Background()
	_, err := f.Svc.Queue(ctx, deploymenttest.Postgres("orders"))
	require.NoError(t, err)
	_, err = f.Svc.Review(ctx, &deployment.Upgrade{Name: "orders", Parameters: deployment.FormInput{"database": "stolen"}, By: "alice"})
	require.Equal(t, "Database name cannot change after install; it stays app", deploymenttest.FieldsOf(t, err)["param.database"])
	_, err = f.Svc.Review(ctx, &deployment.Upgrade{Name: "orders", Parameters: deployment.FormInput{"database": "app", "password": "another-password"}, By: "alice"})
	require.Equal(t, "Superuser password cannot change after install", deploymenttest.FieldsOf(t, err)["param.password"])
	_, err = f.Svc.Review(ctx, &deployment.Upgrade{Name: "orders", Parameters: deployment.FormInput{"database": "app"}, AppVersion: "19.0.0", By: "alice"})
	require.Contains(t, deploymenttest.FieldsOf(t, err)["app_version"], "not supported")
}

func TestOperationsCheckTheirInputs(t *testing.T) {
	t.Parallel()
	f := deploymenttest.Setup(t, nil)
	ctx := context.Background()
	queued, err := f.Svc.Queue(ctx, deploymenttest.HelloWeb("site"))
	require.NoError(t, err)

	_, err = f.Svc.Queue(ctx, &deployment.Rollback{Name: "site", Revision: 3, By: "alice"})
	require.ErrorContains(t, err, "has no revision 3")
	_, err = f.Svc.Queue(ctx, &deployment.Stop{Name: "site", Components: []string{"db"}, By: "alice"})
	require.ErrorContains(t, err, `has no component "db"; it has web`)
	_, err = f.Svc.Queue(ctx, &deployment.Delete{Name: "site", Confirm: "sight", By: "alice"})
	require.Equal(t, "type site to confirm", deploymenttest.FieldsOf(t, err)["confirm"])
	_, err = f.Svc.Queue(ctx, &deployment.Stop{Name: "nope", By: "alice"})
	require.Equal(t, styrmin.ENOTFOUND, styrmin.ErrorCode(err))

	stop, err := f.Svc.Queue(ctx, &deployment.Stop{Name: "site", By: "alice"})
	require.NoError(t, err)
	tasks, next, err := f.Svc.Tasks(ctx, deploymenttest.MustGet(t, f, "site").ID, 0, 1)
	require.NoError(t, err)
	require.Equal(t, stop.TaskID, tasks[0].ID, "newest first")
	require.Equal(t, 1, tasks[0].QueuePosition, "the install waits before it")
	require.Equal(t, stop.TaskID, next)
	older, next, err := f.Svc.Tasks(ctx, deploymenttest.MustGet(t, f, "site").ID, next, 1)
	require.NoError(t, err)
	require.Equal(t, queued.TaskID, older[0].ID)
	require.Zero(t, next, "no more pages")

	require.NoError(t, f.Svc.CancelTask(ctx, "site", stop.TaskID, "bob"))
	task, err := f.Svc.Task(ctx, "site", stop.TaskID)
	require.NoError(t, err)
	require.Equal(t, executor.TaskCanceled, task.Status)
	require.Equal(t, "Cancelled by bob before it started.", task.Message)
	require.ErrorContains(t, f.Svc.CancelTask(ctx, "site", stop.TaskID, "bob"), "has ended; there is nothing to cancel")
}

// startLinked queues op as an operation the action of c starts (Linked) and
// returns its task's id.
func startLinked(ctx context.Context, f deploymenttest.Fixture, c *deployment.Caller, op deployment.LinkedOperation) (int64, error) {
	q, err := f.Svc.Queue(ctx, deployment.Linked{Caller: c, Op: op})
	if err != nil {
		return 0, err
	}
	return q.TaskID, nil
}

func TestLiveSaysPlainlyWhenTheClusterDoesNotAnswer(t *testing.T) {
	t.Parallel()
	f := deploymenttest.Setup(t, deploymenttest.DeadCluster(t))
	ctx := context.Background()
	_, err := f.Svc.Queue(ctx, deploymenttest.HelloWeb("site"))
	require.NoError(t, err)

	live := f.Svc.Live(ctx, deploymenttest.MustGet(t, f, "site"), nil)
	require.Contains(t, live.Err, "The Kubernetes cluster does not answer")
	require.Empty(t, live.Components)

	none := deploymenttest.Setup(t, nil)
	_, err = none.Svc.Queue(ctx, deploymenttest.HelloWeb("site"))
	require.NoError(t, err)
	require.Contains(t, none.Svc.Live(ctx, deploymenttest.MustGet(t, none, "site"), nil).Err, "No Kubernetes cluster is configured")
}

// TestAPageShowsTheRevisionsHelmKeeps: however many revisions Styrmin
// recorded of a deployment, its page reads only the newest that Helm keeps
// (release.DefaultMaxHistory without a cluster), newest first: what a page
// costs does not grow with the deployment's history.
func TestAPageShowsTheRevisionsHelmKeeps(t *testing.T) {
	t.Parallel()
	f := deploymenttest.Setup(t, nil)
	ctx := context.Background()
	queued, err := f.Svc.Queue(ctx, deploymenttest.HelloWeb("site"))
	require.NoError(t, err)
	d := deploymenttest.MustGet(t, f, "site")
	recorded := 3 * release.DefaultMaxHistory
	for n := 1; n <= recorded; n++ {
		require.NoError(t, f.Q.InsertRevision(ctx, db.InsertRevisionParams{DeploymentID: d.ID, Revision: int32(n), TaskID: queued.TaskID,
			DriverVersion: "1.0.0", AppVersion: "1.0.0", Parameters: []byte("{}")}))
	}

	history := f.Svc.Live(ctx, d, nil).History
	require.Len(t, history, release.DefaultMaxHistory)
	require.Equal(t, recorded, history[0].Number, "the newest first")
	require.Equal(t, recorded-release.DefaultMaxHistory+1, history[len(history)-1].Number)
}

func TestActionsStartLinkedTasksButNoUpgradeLoop(t *testing.T) {
	t.Parallel()
	f := deploymenttest.Setup(t, nil)
	ctx := context.Background()
	install, err := f.Svc.Queue(ctx, deploymenttest.Redis("cache"))
	require.NoError(t, err)
	review, err := f.Svc.Review(ctx, &deployment.Upgrade{Name: "cache", Parameters: deployment.FormInput{"replicas": "1"}, By: "alice"})
	require.NoError(t, err)
	upgrade, err := f.Svc.Queue(ctx, deployment.ConfirmUpgrade{Token: review.Token, By: "alice"})
	require.NoError(t, err)
	d := deploymenttest.MustGet(t, f, "cache")
	caller := func(taskID int64) *deployment.Caller {
		step, err := f.Q.InsertStep(ctx, db.InsertStepParams{TaskID: taskID, Kind: deployment.StepHook, Title: "an action"})
		require.NoError(t, err)
		return &deployment.Caller{DeploymentID: d.ID, TaskID: taskID, StepID: step.ID}
	}

	fromUpgrade := caller(upgrade.TaskID)
	_, err = startLinked(ctx, f, fromUpgrade, &deployment.Upgrade{AppVersion: "7.4.1"})
	require.Equal(t, styrmin.ECONFLICT, styrmin.ErrorCode(err))
	require.ErrorContains(t, err, "cannot start another upgrade of it")

	stop, err := startLinked(ctx, f, fromUpgrade, &deployment.Stop{Components: []string{"replica"}})
	require.NoError(t, err)
	task, err := f.Svc.LinkedTask(ctx, fromUpgrade, stop)
	require.NoError(t, err)
	require.Equal(t, deployment.KindStop, task.Kind)
	row, err := f.Q.GetTask(ctx, stop)
	require.NoError(t, err)
	require.Equal(t, fromUpgrade.StepID, *row.ParentStepID, "linked to the calling step")
	require.Equal(t, upgrade.TaskID, *row.RootTaskID, "sharing its chain's hold on the deployment")
	_, err = startLinked(ctx, f, fromUpgrade, &deployment.Stop{Components: []string{"nope"}})
	require.ErrorContains(t, err, `has no component "nope"`)

	fromInstall := caller(install.TaskID)
	_, err = f.Svc.LinkedTask(ctx, fromInstall, stop)
	require.Equal(t, styrmin.ENOTFOUND, styrmin.ErrorCode(err), "a step reads only the tasks it started")
	linkedUpgrade, err := startLinked(ctx, f, fromInstall, &deployment.Upgrade{AppVersion: "7.4.1"})
	require.NoError(t, err, "an install's action may upgrade")
	task, err = f.Svc.LinkedTask(ctx, fromInstall, linkedUpgrade)
	require.NoError(t, err)
	require.Equal(t, "7.4.1", deploymenttest.Inputs[*deployment.UpgradeInputs](t, task).AppVersion)
	_, err = startLinked(ctx, f, fromInstall, &deployment.Upgrade{AppVersion: "8.0.0"})
	require.Contains(t, styrmin.ErrorFields(err)["app_version"], "not supported")
}
