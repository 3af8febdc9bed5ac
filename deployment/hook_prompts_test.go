package deployment_test

import (
	"context"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/styrmin/styrmin"
	"github.com/styrmin/styrmin/app/apptest"
	"github.com/styrmin/styrmin/db"
	"github.com/styrmin/styrmin/deployment"
	"github.com/styrmin/styrmin/deployment/deploymenttest"
	"github.com/styrmin/styrmin/executor"
	"github.com/styrmin/styrmin/redact"
	"github.com/styrmin/styrmin/secrets"
)

// promptActions are the actions of the Redis copy the prompt tests install:
// hook actions with plain and secret prompts, and a manual action whose
// required prompt no install, upgrade or delete form asks.
const promptActions = `
- name: seed
  title: Seed the cache
  description: Loads the first keys.
  hook: pre-install
  function: "actions:seed"
  prompts:
    - {name: keys, type: integer, default: 3, min: 1, max: 10}
    - {name: api_key, type: secret, required: true}
- name: announce
  hook: post-upgrade
  function: "actions:announce"
  prompts:
    - {name: channel, type: string, required: true, pattern: "^#[a-z]+$"}
    - {name: webhook, type: secret}
- name: archive
  hook: pre-delete
  function: "actions:archive"
  prompts:
    - {name: bucket, type: string, default: backups}
    - {name: token, type: secret, required: true}
- name: quiet
  hook: post-delete
  function: "actions:archive"
- name: flush
  hook: manual
  function: "actions:archive"
  prompts:
    - {name: confirm, type: string, required: true}
`

// promptActionsPy is their Python module; archive logs its prompts.
const promptActionsPy = `
import logging


def seed(keys, api_key):
    pass


def announce(channel, webhook=None):
    pass


def archive(bucket=None, token=None):
    logging.getLogger("test").info("bucket %s, token %s", bucket, token)
`

// setupPrompts returns a service holding Redis 1.5.0 with promptActions.
func setupPrompts(t *testing.T) deploymenttest.Fixture {
	t.Helper()
	f := deploymenttest.Setup(t, nil)
	f.ImportCopy(t, "redis", "1.5.0", promptActions, promptActionsPy)
	return f
}

// redisWithPrompts is a valid install of that Redis copy.
func redisWithPrompts(name string) *deployment.Install {
	req := deploymenttest.Redis(name)
	req.DriverVersion = "1.5.0"
	req.Prompts = deployment.FormPrompts{"seed": {"keys": "5", "api_key": "k3y-s3cret"}}
	return req
}

// setupQueuedCache is setupPrompts with the install of redisWithPrompts
// "cache" queued (not run): its task and its deployment.
func setupQueuedCache(t *testing.T) (deploymenttest.Fixture, *deployment.Queued, *deployment.Deployment) {
	t.Helper()
	f := setupPrompts(t)
	install, err := f.Svc.Queue(context.Background(), redisWithPrompts("cache"))
	require.NoError(t, err)
	return f, install, deploymenttest.MustGet(t, f, "cache")
}

// taskRow is a task's inputs as text and its secret inputs opened.
func taskRow(f deploymenttest.Fixture, t *testing.T, taskID int64) (inputs string, secretInputs map[string]string) {
	t.Helper()
	ctx := context.Background()
	var sealed []byte
	require.NoError(t, f.Pool.QueryRow(ctx, `SELECT inputs::text, secret_inputs FROM tasks WHERE id = $1`, taskID).Scan(&inputs, &sealed))
	key, err := secrets.ParseKey(f.KeyText)
	require.NoError(t, err)
	box, err := secrets.NewBox(key)
	require.NoError(t, err)
	secretInputs, err = box.OpenValues(sealed, secrets.At("tasks", "secret_inputs", taskID))
	require.NoError(t, err)
	return inputs, secretInputs
}

func TestInstallFormHasASectionPerHookActionWithPrompts(t *testing.T) {
	t.Parallel()
	f := setupPrompts(t)
	form, err := f.Svc.InstallForm(context.Background(), "redis", "1.5.0")
	require.NoError(t, err)
	require.Len(t, form.HookActions, 1, "only the install's hook actions that ask prompts")
	require.Equal(t, "seed", form.HookActions[0].Name)
	require.Equal(t, map[string]map[string]string{"seed": {"keys": "3"}}, form.Prompts, "defaults; a secret starts blank")
}

func TestInstallPutsHookPromptsInTheTaskAndSealsSecretOnes(t *testing.T) {
	t.Parallel()
	f := setupPrompts(t)
	ctx := context.Background()
	queued, err := f.Svc.Queue(ctx, redisWithPrompts("cache"))
	require.NoError(t, err)

	task, err := f.Svc.Task(ctx, "cache", queued.TaskID)
	require.NoError(t, err)
	require.Equal(t, map[string]map[string]any{"seed": {"keys": float64(5)}}, deploymenttest.Inputs[*deployment.InstallInputs](t, task).Prompts)
	inputs, sealed := taskRow(f, t, queued.TaskID)
	require.NotContains(t, inputs, "k3y-s3cret", "a task's inputs never hold a secret")
	require.Equal(t, map[string]string{"prompt/seed/api_key": "k3y-s3cret"}, sealed, "the install's secret parameters stay on the deployment")
}

func TestHookPromptsAreCheckedLikeParameters(t *testing.T) {
	t.Parallel()
	f := setupPrompts(t)
	ctx := context.Background()
	req := redisWithPrompts("cache")
	req.Prompts = deployment.FormPrompts{"seed": {"keys": "20"}}
	_, err := f.Svc.Queue(ctx, req)
	require.Equal(t, map[string]string{
		"prompt.seed.keys":    "20 is more than the maximum 10",
		"prompt.seed.api_key": "api_key is required",
	}, deploymenttest.FieldsOf(t, err), "the manual action's required prompt is not asked")

	_, err = f.Svc.Queue(ctx, redisWithPrompts("cache"))
	require.NoError(t, err)
	_, err = f.Svc.Review(ctx, &deployment.Upgrade{Name: "cache", By: "alice",
		Prompts: deployment.FormPrompts{"announce": {"channel": "ops"}}})
	require.Equal(t, map[string]string{"prompt.announce.channel": `"ops" does not match the pattern ^#[a-z]+$`}, deploymenttest.FieldsOf(t, err))

	_, err = f.Svc.Queue(ctx, &deployment.Delete{Name: "cache", Confirm: "cach", By: "alice"})
	require.Equal(t, map[string]string{
		"confirm":              "type cache to confirm",
		"prompt.archive.token": "token is required",
	}, deploymenttest.FieldsOf(t, err))
}

func TestUpgradeCarriesHookPromptsSealedInItsReview(t *testing.T) {
	t.Parallel()
	f := setupPrompts(t)
	ctx := context.Background()
	_, err := f.Svc.Queue(ctx, redisWithPrompts("cache"))
	require.NoError(t, err)

	form, err := f.Svc.UpgradeForm(ctx, "cache", "")
	require.NoError(t, err)
	require.Len(t, form.HookActions, 1)
	require.Equal(t, "announce", form.HookActions[0].Name)

	req := &deployment.Upgrade{Name: "cache", Parameters: deployment.FormInput{"password": "new-s3cret-password"}, By: "alice",
		Prompts: deployment.FormPrompts{"announce": {"channel": "#ops", "webhook": "w3bhook-s3cret"}}}
	review, err := f.Svc.Review(ctx, req)
	require.NoError(t, err)
	require.NotContains(t, review.Token, "w3bhook-s3cret")
	require.Len(t, review.Prompts, 2)
	require.Equal(t, deployment.PromptValue{Action: "announce", ActionTitle: review.Prompts[0].ActionTitle, Hook: "post-upgrade",
		Name: "channel", Title: "channel", Value: "#ops", Set: true}, review.Prompts[0], "the review lists what the action will run with")
	require.Equal(t, deployment.PromptValue{Action: "announce", ActionTitle: review.Prompts[0].ActionTitle, Hook: "post-upgrade",
		Name: "webhook", Title: "webhook", Secret: true, Set: true}, review.Prompts[1], "a secret prompt only says it was given")

	edit, err := f.Svc.EditUpgrade(ctx, review.Token, "alice")
	require.NoError(t, err)
	require.Equal(t, map[string]string{"channel": "#ops"}, edit.Prompts["announce"], "Back keeps the entered prompts, secrets blank")

	queued, err := f.Svc.Queue(ctx, deployment.ConfirmUpgrade{Token: review.Token, By: "alice"})
	require.NoError(t, err)
	task, err := f.Svc.Task(ctx, "cache", queued.TaskID)
	require.NoError(t, err)
	require.Equal(t, map[string]map[string]any{"announce": {"channel": "#ops"}}, deploymenttest.Inputs[*deployment.UpgradeInputs](t, task).Prompts)
	inputs, sealed := taskRow(f, t, queued.TaskID)
	require.NotContains(t, inputs, "w3bhook-s3cret")
	require.Equal(t, "w3bhook-s3cret", sealed["prompt/announce/webhook"])
	require.Equal(t, "new-s3cret-password", sealed["password"], "the deployment's secrets travel beside the prompts")
}

func TestAnUpgradeAnActionStartsTakesItsHookPrompts(t *testing.T) {
	t.Parallel()
	f, install, d := setupQueuedCache(t)
	ctx := context.Background()
	step, err := f.Q.InsertStep(ctx, db.InsertStepParams{TaskID: install.TaskID, Kind: deployment.StepHook, Title: "seed"})
	require.NoError(t, err)
	caller := &deployment.Caller{DeploymentID: d.ID, TaskID: install.TaskID, StepID: step.ID}
	upgrade := func(prompts map[string]map[string]any) (int64, error) {
		return startLinked(ctx, f, caller, &deployment.Upgrade{AppVersion: "7.4.1", Prompts: deployment.JSONPrompts(prompts)})
	}

	for _, tt := range []struct {
		prompts map[string]map[string]any
		field   string
	}{
		{prompts: nil, field: "prompt.announce.channel"}, // required, no default
		{prompts: map[string]map[string]any{"announce": {"channel": "ops"}}, field: "prompt.announce.channel"},
		{prompts: map[string]map[string]any{"announce": {"channel": "#ops", "volume": 11}}, field: "prompt.announce.volume"},
		{prompts: map[string]map[string]any{"announce": {"channel": "#ops"}, "seed": {"keys": 4}}, field: "prompt.seed"},
	} {
		_, err := upgrade(tt.prompts)
		require.Equal(t, styrmin.EINVALID, styrmin.ErrorCode(err), "%v", tt.prompts)
		require.Contains(t, styrmin.ErrorFields(err), tt.field, "%v", tt.prompts)
	}

	id, err := upgrade(map[string]map[string]any{"announce": {"channel": "#ops", "webhook": "w3bhook-s3cret"}})
	require.NoError(t, err)
	task, err := f.Svc.LinkedTask(ctx, caller, id)
	require.NoError(t, err)
	require.Equal(t, map[string]map[string]any{"announce": {"channel": "#ops"}}, deploymenttest.Inputs[*deployment.UpgradeInputs](t, task).Prompts)
	inputs, sealed := taskRow(f, t, id)
	require.NotContains(t, inputs, "w3bhook-s3cret")
	require.Equal(t, "w3bhook-s3cret", sealed["prompt/announce/webhook"], "a secret prompt is sealed, as the form's are")
}

func TestDeletePutsHookPromptsInTheTaskAndSealsSecretOnes(t *testing.T) {
	t.Parallel()
	f := setupPrompts(t)
	ctx := context.Background()
	_, err := f.Svc.Queue(ctx, redisWithPrompts("cache"))
	require.NoError(t, err)

	form, err := f.Svc.DeleteForm(ctx, "cache")
	require.NoError(t, err)
	require.Len(t, form.HookActions, 1, "the post-delete action asks nothing")
	require.Equal(t, map[string]map[string]string{"archive": {"bucket": "backups"}}, form.Prompts)

	queued, err := f.Svc.Queue(ctx, &deployment.Delete{Name: "cache", Confirm: "cache", Prompts: deployment.FormPrompts{"archive": {"token": "t0ken-s3cret"}}, By: "alice"})
	require.NoError(t, err)
	task, err := f.Svc.Task(ctx, "cache", queued.TaskID)
	require.NoError(t, err)
	require.Equal(t, map[string]map[string]any{"archive": {"bucket": "backups"}}, deploymenttest.Inputs[*deployment.DeleteInputs](t, task).Prompts, "a blank field takes its default")
	inputs, sealed := taskRow(f, t, queued.TaskID)
	require.NotContains(t, inputs, "t0ken-s3cret")
	require.Equal(t, map[string]string{"prompt/archive/token": "t0ken-s3cret"}, sealed)
}

// TestDeleteRunsItsHookActionWithItsSecretPrompt runs a delete task for real
// against a cluster that does not answer: its pre-delete action runs before
// Helm does, and gets the plain prompt and the secret one, unsealed (the log
// line that prints it is redacted).
func TestDeleteRunsItsHookActionWithItsSecretPrompt(t *testing.T) {
	t.Parallel()
	f := deploymenttest.NewFixture(t, apptest.Options{Cluster: deploymenttest.DeadCluster(t), Work: true, Actions: true})
	f.ImportCopy(t, "redis", "1.5.0", promptActions, promptActionsPy)
	ctx := context.Background()
	_, err := f.Svc.Queue(ctx, redisWithPrompts("cache"))
	require.NoError(t, err)
	queued, err := f.Svc.Queue(ctx, &deployment.Delete{Name: "cache", Confirm: "cache", Prompts: deployment.FormPrompts{"archive": {"bucket": "old", "token": "t0ken-s3cret"}}, By: "alice"})
	require.NoError(t, err)

	f.Env.Start(t)

	task := f.WaitEnded(t, "cache", queued.TaskID)
	require.Equal(t, executor.TaskFailed, task.Status, "Helm cannot reach the cluster")
	archive := deploymenttest.HookStep(t, task, "archive")
	require.Equal(t, executor.StepSucceeded, archive.Status, "%+v", archive)
	require.Contains(t, deploymenttest.LogText(archive), "bucket old, token "+redact.Mark, "the action got both prompts")
	require.NotContains(t, deploymenttest.LogText(archive), "t0ken-s3cret")
}

// TestARunReadsItsBundleAndPromptsAsTheExecutorGivesThem: GET run (the pod
// runtime's entrypoint) gets, for each hook action of a task, that action's
// prompts (secret ones unsealed, defaults filled in) and the bundle of the
// task's driver version; an action the driver does not have is not found.
func TestARunReadsItsBundleAndPromptsAsTheExecutorGivesThem(t *testing.T) {
	t.Parallel()
	f, install, d := setupQueuedCache(t)
	ctx := context.Background()
	remove, err := f.Svc.Queue(ctx, &deployment.Delete{Name: "cache", Confirm: "cache", Prompts: deployment.FormPrompts{"archive": {"token": "t0ken-s3cret"}}, By: "alice"})
	require.NoError(t, err)

	for _, c := range []struct {
		task    int64
		action  string
		prompts map[string]any
	}{
		{install.TaskID, "seed", map[string]any{"keys": float64(5), "api_key": "k3y-s3cret"}},
		{remove.TaskID, "archive", map[string]any{"bucket": "backups", "token": "t0ken-s3cret"}},
		{remove.TaskID, "quiet", map[string]any{}},
	} {
		in, err := f.Svc.ReadRunInput(ctx, &deployment.Caller{DeploymentID: d.ID, TaskID: c.task, StepID: 1, Action: c.action})
		require.NoError(t, err)
		require.Equal(t, c.prompts, in.Prompts, "%s", c.action)
		require.Equal(t, promptActionsPy, string(in.Files["actions.py"]))
		require.Contains(t, in.Files, "driver.styrmin.yml")
	}
	_, err = f.Svc.ReadRunInput(ctx, &deployment.Caller{DeploymentID: d.ID, TaskID: install.TaskID, StepID: 1, Action: "nope"})
	require.Equal(t, styrmin.ENOTFOUND, styrmin.ErrorCode(err))
}
