package deployment_test

import (
	"context"
	"fmt"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/styrmin/styrmin"
	"github.com/styrmin/styrmin/db"
	"github.com/styrmin/styrmin/deployment"
	"github.com/styrmin/styrmin/deployment/deploymenttest"
)

// invalidFields are the typed field errors of an operation's refusal.
func invalidFields(t *testing.T, err error) []deployment.FieldError {
	t.Helper()
	var invalid *deployment.InvalidError
	require.ErrorAs(t, err, &invalid)
	return invalid.Fields
}

// helloWebOp is a valid install of the bundled Hello Web driver with JSON values.
func helloWebOp(name string, values deployment.JSONInput) *deployment.Install {
	return &deployment.Install{Driver: "hello-web", DriverVersion: "1.0.0", Name: name, AppVersion: "1.27.0",
		Parameters: values, By: "alice"}
}

func TestQueueInstallsWithJSONValuesAndNamesEachBadField(t *testing.T) {
	t.Parallel()
	f := deploymenttest.Setup(t, nil)
	ctx := context.Background()

	_, err := f.Svc.Queue(ctx, helloWebOp("Site", deployment.JSONInput{"replicas": 0}))
	require.ElementsMatch(t, []deployment.FieldError{
		{Field: deployment.Field{Kind: deployment.FieldName}, Message: "the name must be lower-case letters, digits and '-', starting with a letter and ending with a letter or digit"},
		{Field: deployment.ParamField("replicas"), Message: "0 is less than the minimum 1"},
	}, invalidFields(t, err))

	_, err = f.Svc.Queue(ctx, helloWebOp("Site", deployment.JSONInput{"colour": "red", "replicas": 0}))
	require.Equal(t, []deployment.FieldError{{Field: deployment.ParamField("colour"), Message: "there is no parameter named colour"}},
		invalidFields(t, err), "values of a shape no parameter takes are refused first, alone")

	queued, err := f.Svc.Queue(ctx, helloWebOp("site", deployment.JSONInput{"replicas": 3, "site_title": "Shop"}))
	require.NoError(t, err)
	task, err := f.Svc.Task(ctx, "site", queued.TaskID)
	require.NoError(t, err)
	require.Equal(t, deployment.KindInstall, task.Kind)
	parameters := deploymenttest.Inputs[*deployment.InstallInputs](t, task).Parameters
	require.Equal(t, float64(3), parameters["replicas"])
	require.Equal(t, "Shop", parameters["site_title"])

	_, err = f.Svc.Queue(ctx, helloWebOp("site", nil))
	require.Equal(t, []deployment.FieldError{{Field: deployment.Field{Kind: deployment.FieldName},
		Message: "a deployment named site exists; choose another name or delete it first"}}, invalidFields(t, err))
}

func TestConfirmQueuesTheUpgradeItsReviewPlanned(t *testing.T) {
	t.Parallel()
	f := deploymenttest.Setup(t, nil)
	ctx := context.Background()
	_, err := f.Svc.Queue(ctx, deploymenttest.Redis("orders"))
	require.NoError(t, err)

	_, err = f.Svc.Review(ctx, &deployment.Upgrade{Name: "orders", Parameters: deployment.JSONInput{"replicas": -1}, By: "alice"})
	require.Equal(t, []deployment.FieldError{{Field: deployment.ParamField("replicas"), Message: "-1 is less than the minimum 0"}},
		invalidFields(t, err))

	op := &deployment.Upgrade{Name: "orders", Parameters: deployment.JSONInput{"replicas": 1, "password": "new-s3cret-password"}, By: "alice"}
	review, err := f.Svc.Review(ctx, op)
	require.NoError(t, err)
	var changed []string
	for _, c := range review.Changes {
		if c.Kind != "unchanged" {
			changed = append(changed, c.Name)
		}
	}
	require.ElementsMatch(t, []string{"password", "replicas"}, changed)
	require.NotContains(t, review.Token, "new-s3cret-password")

	_, err = f.Svc.Queue(ctx, deployment.ConfirmUpgrade{Token: review.Token, By: "mallory"})
	require.ErrorContains(t, err, "made by another user")
	queued, err := f.Svc.Queue(ctx, deployment.ConfirmUpgrade{Token: review.Token, By: "alice"})
	require.NoError(t, err)
	task, err := f.Svc.Task(ctx, "orders", queued.TaskID)
	require.NoError(t, err)
	require.Equal(t, deployment.KindUpgrade, task.Kind)
	upgrade := deploymenttest.Inputs[*deployment.UpgradeInputs](t, task)
	require.ElementsMatch(t, []string{"password", "replicas"}, upgrade.Changed, "the changes the review showed")
	require.Equal(t, float64(1), upgrade.Parameters["replicas"])
	inputs, sealed := taskRow(f, t, queued.TaskID)
	require.NotContains(t, inputs, "new-s3cret-password")
	require.Equal(t, "new-s3cret-password", sealed["password"], "the review's secrets travel sealed in its token to the task")
}

func TestRunActionRunsOnlyManualActionsAndNamesItsPrompts(t *testing.T) {
	t.Parallel()
	f := setupPrompts(t)
	ctx := context.Background()
	_, err := f.Svc.Queue(ctx, redisWithPrompts("cache"))
	require.NoError(t, err)

	_, err = f.Svc.Queue(ctx, &deployment.RunAction{Name: "cache", Action: "seed", By: "alice"})
	require.Equal(t, styrmin.ENOTFOUND, styrmin.ErrorCode(err), "a hook action is no manual action")
	_, err = f.Svc.Queue(ctx, &deployment.RunAction{Name: "cache", Action: "flush", Prompts: deployment.JSONInput{}, By: "alice"})
	require.Equal(t, []deployment.FieldError{{Field: deployment.PromptField("flush", "confirm"), Message: "confirm is required"}},
		invalidFields(t, err))
	_, err = f.Svc.Queue(ctx, &deployment.RunAction{Name: "cache", Action: "flush", Prompts: deployment.FormInput{}, By: "alice"})
	require.Equal(t, map[string]string{"prompt.flush.confirm": "confirm is required"}, deploymenttest.FieldsOf(t, err), "a form's text names the same prompt")

	queued, err := f.Svc.Queue(ctx, &deployment.RunAction{Name: "cache", Action: "flush", Prompts: deployment.JSONInput{"confirm": "yes"}, By: "alice"})
	require.NoError(t, err)
	task, err := f.Svc.Task(ctx, "cache", queued.TaskID)
	require.NoError(t, err)
	require.Equal(t, &deployment.ActionInputs{Action: "flush", Prompts: map[string]any{"confirm": "yes"}}, task.Inputs)
}

func TestALinkedUpgradeNamesTheParametersItChanges(t *testing.T) {
	t.Parallel()
	f := deploymenttest.Setup(t, nil)
	ctx := context.Background()
	install, err := f.Svc.Queue(ctx, deploymenttest.Redis("cache"))
	require.NoError(t, err)
	// The stored values lack a declared parameter: the upgrade gives it its
	// default, as the upgrade form would, and says so.
	_, err = f.Pool.Exec(ctx, `UPDATE deployments SET parameters = parameters - 'replicas' WHERE name = 'cache'`)
	require.NoError(t, err)
	d := deploymenttest.MustGet(t, f, "cache")
	step, err := f.Q.InsertStep(ctx, db.InsertStepParams{TaskID: install.TaskID, Kind: deployment.StepHook, Title: "an action"})
	require.NoError(t, err)
	caller := &deployment.Caller{DeploymentID: d.ID, TaskID: install.TaskID, StepID: step.ID}

	id, err := startLinked(ctx, f, caller, &deployment.Upgrade{AppVersion: "7.4.1"})
	require.NoError(t, err)
	task, err := f.Svc.LinkedTask(ctx, caller, id)
	require.NoError(t, err)
	upgrade := deploymenttest.Inputs[*deployment.UpgradeInputs](t, task)
	require.Equal(t, []string{"replicas"}, upgrade.Changed)
	require.Equal(t, float64(2), upgrade.Parameters["replicas"])
	row, err := f.Q.GetTask(ctx, id)
	require.NoError(t, err)
	require.Equal(t, fmt.Sprintf("action (task %d)", install.TaskID), row.CreatedBy)

	_, err = f.Svc.Queue(ctx, deployment.Linked{Caller: caller, Op: &deployment.Stop{Components: []string{"nope"}}})
	require.EqualError(t, err, `Deployment cache has no component "nope"; it has primary, replica.`,
		"an action's stop checks component names as a user's does, with the same message")
}
