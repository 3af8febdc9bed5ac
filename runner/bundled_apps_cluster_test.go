package runner_test

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/styrmin/styrmin/deployment"
	"github.com/styrmin/styrmin/deployment/deploymenttest"
	"github.com/styrmin/styrmin/devcluster/kubetest"
	"github.com/styrmin/styrmin/drivers/bundled/bundledtest"
	"github.com/styrmin/styrmin/executor"
	"github.com/styrmin/styrmin/kube"
)

// These tests run the bundled drivers, actions included, against live
// applications on the local cluster's real node: the data a driver keeps
// must survive its upgrade, stop and start.

// probeRelease names the Jobs the tests run beside a deployment's own.
const probeRelease = "probe"

// probe runs commands in image in the deployment's namespace and requires
// them to succeed; secretEnv goes through the Job's own Secret.
func probe(f deploymenttest.ClusterFixture, t *testing.T, d *deployment.Deployment, image string, env, secretEnv map[string]string, commands ...string) {
	t.Helper()
	out, err := f.Cluster.Kube.RunActionJob(context.Background(), kube.ActionJob{
		Namespace: d.Namespace, Release: probeRelease, Commands: commands, Image: image,
		Env: env, SecretEnv: secretEnv, Timeout: 3 * time.Minute,
	})
	require.NoError(t, err)
	require.True(t, out.Succeeded, "%s: %s\n%s", strings.Join(commands, "; "), out.Message, out.Tail)
}

// requireHookSucceeded finds the hook step of action in task and requires
// that it succeeded and logged want.
func requireHookSucceeded(t *testing.T, task *deployment.Task, action, want string) {
	t.Helper()
	for _, s := range task.Steps {
		if s.Hook == nil || s.Hook.Action != action {
			continue
		}
		require.Equal(t, executor.StepSucceeded, s.Status, "%s: %s %+v", action, s.Message, s.Hook)
		var logged []string
		for _, l := range s.Logs {
			logged = append(logged, l.Message)
		}
		require.Contains(t, strings.Join(logged, "\n"), want, "the %s step's log", action)
		return
	}
	t.Fatalf("the %s task has no %s step: %+v", task.Kind, action, task.Steps)
}

// releasePods names the pods of the deployment's release.
func releasePods(f deploymenttest.ClusterFixture, t *testing.T, d *deployment.Deployment) []string {
	t.Helper()
	pods, err := f.Cluster.Kube.Clientset.CoreV1().Pods(d.Namespace).List(context.Background(), metav1.ListOptions{LabelSelector: "app.kubernetes.io/instance=" + d.Name})
	require.NoError(t, err)
	var names []string
	for _, p := range pods.Items {
		names = append(names, p.Name)
	}
	return names
}

// lifeWithData installs a bundled driver, writes data, upgrades it to driver
// nextDriver and application nextApp (its hooks run), stops and starts it,
// and deletes it, reading the data back after each change.
type lifeWithData struct {
	install             *deployment.Install
	nextDriver, nextApp string
	// write and read run Jobs against the live application.
	write, read func(t *testing.T, f deploymenttest.ClusterFixture, d *deployment.Deployment)
	// upgradeHook is a hook action of the upgrade, and a line it logs.
	upgradeHook, upgradeLog string
}

func (l lifeWithData) run(t *testing.T, f deploymenttest.ClusterFixture) {
	ctx := context.Background()
	name := l.install.Name
	f.CleanUp(t, name)
	f.WaitTask(t, name, deploymenttest.Queued(t)(f.Svc.Queue(ctx, l.install)))
	d := deploymenttest.MustGet(t, f.Fixture, name)
	l.write(t, f, d)

	review, err := f.Svc.Review(ctx, &deployment.Upgrade{Name: name, DriverVersion: l.nextDriver, AppVersion: l.nextApp, By: "alice"})
	require.NoError(t, err)
	require.Empty(t, review.DryRunError)
	upgrade := f.WaitTask(t, name, deploymenttest.Queued(t)(f.Svc.Queue(ctx, deployment.ConfirmUpgrade{Token: review.Token, By: "alice"})))
	requireHookSucceeded(t, upgrade, l.upgradeHook, l.upgradeLog)
	d = deploymenttest.MustGet(t, f.Fixture, name)
	require.Equal(t, l.nextApp, d.AppVersion)
	l.read(t, f, d)

	f.WaitTask(t, name, deploymenttest.Queued(t)(f.Svc.Queue(ctx, &deployment.Stop{Name: name, By: "alice"})))
	require.Empty(t, releasePods(f, t, d), "a stop ends once its pods are gone")
	f.WaitTask(t, name, deploymenttest.Queued(t)(f.Svc.Queue(ctx, &deployment.Start{Name: name, By: "alice"})))
	l.read(t, f, d)

	f.WaitTask(t, name, deploymenttest.Queued(t)(f.Svc.Queue(ctx, &deployment.Delete{Name: name, Confirm: name, By: "alice"})))
	// Helm's uninstall does not wait for the pods; they end after their grace period.
	require.Eventually(t, func() bool { return len(releasePods(f, t, d)) == 0 }, 2*time.Minute, time.Second, "the deleted deployment's pods go")
}

func TestPostgreSQLKeepsItsDataThroughItsLifeOnTheLocalCluster(t *testing.T) {
	t.Parallel()
	f := deploymenttest.SetupCluster(t)
	_, err := f.Catalog.ImportFS(context.Background(), bundledtest.AsVersion(t, "postgresql", "1.3.0"), ".", "test")
	require.NoError(t, err)
	name := kubetest.UniqueName("pg-data")
	login := func(d *deployment.Deployment) (env, secretEnv map[string]string) {
		return map[string]string{"PGHOST": d.Name + "-postgresql", "PGUSER": "postgres", "PGDATABASE": "app", "PGCONNECT_TIMEOUT": "10"},
			map[string]string{"PGPASSWORD": "s3cret-password"}
	}
	lifeWithData{
		install:    deploymenttest.Postgres(name),
		nextDriver: "1.3.0",
		nextApp:    "16.5.0",
		write: func(t *testing.T, f deploymenttest.ClusterFixture, d *deployment.Deployment) {
			env, secretEnv := login(d)
			probe(f, t, d, "postgres:16.4", env, secretEnv,
				`psql -X -v ON_ERROR_STOP=1 -c "CREATE TABLE notes (body text); INSERT INTO notes VALUES ('kept through it all')"`)
		},
		read: func(t *testing.T, f deploymenttest.ClusterFixture, d *deployment.Deployment) {
			env, secretEnv := login(d)
			probe(f, t, d, "postgres:16.4", env, secretEnv,
				`got="$(psql -X -At -v ON_ERROR_STOP=1 -c 'SELECT body FROM notes')"`,
				`echo "read: $got"`,
				`test "$got" = "kept through it all"`)
		},
		upgradeHook: "backup",
		upgradeLog:  "written (",
	}.run(t, f)
}

func TestRedisKeepsAKeyThroughItsLifeOnTheLocalCluster(t *testing.T) {
	t.Parallel()
	f := deploymenttest.SetupCluster(t)
	_, err := f.Catalog.ImportFS(context.Background(), bundledtest.AsVersion(t, "redis", "1.1.0"), ".", "test")
	require.NoError(t, err)
	install := deploymenttest.Redis(kubetest.UniqueName("redis-data"))
	install.Parameters = deployment.FormInput{"password": "s3cret-password", "replicas": "0", "persistence": "true"}
	cli := func(d *deployment.Deployment, command string) []string {
		return []string{fmt.Sprintf(`redis-cli -h %s-redis %s`, d.Name, command)}
	}
	auth := map[string]string{"REDISCLI_AUTH": "s3cret-password"}
	lifeWithData{
		install:    install,
		nextDriver: "1.1.0",
		nextApp:    "7.4.1",
		write: func(t *testing.T, f deploymenttest.ClusterFixture, d *deployment.Deployment) {
			probe(f, t, d, "redis:7.4", nil, auth, cli(d, "SET kept 'through it all'")...)
		},
		read: func(t *testing.T, f deploymenttest.ClusterFixture, d *deployment.Deployment) {
			probe(f, t, d, "redis:7.4", nil, auth, `got="$(`+cli(d, "GET kept")[0]+`)"`, `echo "read: $got"`, `test "$got" = "through it all"`)
		},
		upgradeHook: "check_servers",
		upgradeLog:  "Checking that",
	}.run(t, f)
}

func TestHelloWebAnswersTheHostThroughItsServiceOnTheLocalCluster(t *testing.T) {
	t.Parallel()
	f := deploymenttest.SetupCluster(t)
	ctx := context.Background()
	install := deploymenttest.HelloWeb(kubetest.UniqueName("hello-host"))
	f.CleanUp(t, install.Name)
	task := f.WaitTask(t, install.Name, deploymenttest.Queued(t)(f.Svc.Queue(ctx, install)))
	requireHookSucceeded(t, task, "smoke_test", "Fetching")
	d := deploymenttest.MustGet(t, f.Fixture, install.Name)

	svc, err := f.Cluster.Kube.Clientset.CoreV1().Services(d.Namespace).Get(ctx, d.Name+"-hello-web", metav1.GetOptions{})
	require.NoError(t, err)
	require.NotEmpty(t, svc.Spec.ClusterIP)
	client := http.Client{Timeout: 10 * time.Second}
	resp, err := client.Get("http://" + svc.Spec.ClusterIP + "/")
	require.NoError(t, err, "the host reaches the Service's cluster IP")
	defer resp.Body.Close()
	body, err := io.ReadAll(resp.Body)
	require.NoError(t, err)
	require.Equal(t, http.StatusOK, resp.StatusCode)
	require.Contains(t, string(body), "<title>Shop</title>", "the page carries the configured title")
}

// backup is a backup as the PostgreSQL driver's actions name it.
type backup struct {
	Name string `json:"name"`
	Size int64  `json:"size_bytes"`
}

// postgresWithNotes installs the bundled PostgreSQL as prefix plus digits
// and writes the table notes with one row; psql runs commands as its
// superuser in a probe Job.
func postgresWithNotes(t *testing.T, f deploymenttest.ClusterFixture, prefix string) (d *deployment.Deployment, psql func(commands ...string)) {
	t.Helper()
	install := deploymenttest.Postgres(kubetest.UniqueName(prefix))
	f.CleanUp(t, install.Name)
	f.WaitTask(t, install.Name, deploymenttest.Queued(t)(f.Svc.Queue(context.Background(), install)))
	d = deploymenttest.MustGet(t, f.Fixture, install.Name)
	env := map[string]string{"PGHOST": d.Name + "-postgresql", "PGUSER": "postgres", "PGDATABASE": "app", "PGCONNECT_TIMEOUT": "10"}
	psql = func(commands ...string) {
		probe(f, t, d, "postgres:16.4", env, map[string]string{"PGPASSWORD": "s3cret-password"}, commands...)
	}
	psql(`psql -X -v ON_ERROR_STOP=1 -c "CREATE TABLE notes (body text); INSERT INTO notes VALUES ('worth keeping')"`)
	return d, psql
}

// actionResult decodes the result of task's step of action into into.
func actionResult(t *testing.T, task *deployment.Task, action string, into any) {
	t.Helper()
	step := deploymenttest.HookStep(t, task, action)
	require.NoError(t, json.Unmarshal(step.Hook.Result, into), "%s: %s", action, step.Hook.Result)
}

// TestPostgreSQLBacksUpRestoresAndPrunesOnTheLocalCluster: the PostgreSQL
// driver's manual actions on a live server: a backup names itself and its
// size in its result, a restore brings back a dropped table (after a backup
// of the database without it), the list shows every backup, and a prune
// keeps only the newest.
func TestPostgreSQLBacksUpRestoresAndPrunesOnTheLocalCluster(t *testing.T) {
	t.Parallel()
	f := deploymenttest.SetupCluster(t)
	ctx := context.Background()
	d, psql := postgresWithNotes(t, f, "pg-backup")
	// run runs a manual action of the deployment and returns its result.
	run := func(action string, prompts deployment.FormInput, result any) {
		t.Helper()
		task := f.WaitTask(t, d.Name, deploymenttest.Queued(t)(f.Svc.Queue(ctx, &deployment.RunAction{Name: d.Name, Action: action, Prompts: prompts, By: "alice"})))
		actionResult(t, task, action, result)
	}

	var nightly backup
	run("take_backup", deployment.FormInput{"label": "nightly"}, &nightly)
	require.Regexp(t, `^app-nightly-[0-9]{8}T[0-9]{6}Z\.dump$`, nightly.Name)
	require.Positive(t, nightly.Size, "the result says how big the dump is")

	psql(`psql -X -v ON_ERROR_STOP=1 -c "DROP TABLE notes"`)
	var restored struct {
		Restored string `json:"restored"`
		Before   string `json:"pre_restore_backup"`
	}
	run("restore", deployment.FormInput{"backup": nightly.Name}, &restored)
	require.Equal(t, nightly.Name, restored.Restored)
	require.Regexp(t, `^app-pre-restore-`, restored.Before)
	psql(`got="$(psql -X -At -v ON_ERROR_STOP=1 -c 'SELECT body FROM notes')"`, `echo "read: $got"`, `test "$got" = "worth keeping"`)

	var listed []backup
	run("list_backups", deployment.FormInput{}, &listed)
	require.Len(t, listed, 2, "the nightly backup and the one taken before the restore: %+v", listed)
	require.Equal(t, nightly.Name, listed[0].Name, "oldest first")

	var pruned struct{ Kept, Deleted []string }
	run("prune_backups", deployment.FormInput{"keep_last": "1"}, &pruned)
	require.Equal(t, []string{restored.Before}, pruned.Kept)
	require.Equal(t, []string{nightly.Name}, pruned.Deleted)
	run("list_backups", deployment.FormInput{}, &listed)
	require.Len(t, listed, 1)

	task, err := f.Svc.Queue(ctx, &deployment.RunAction{Name: d.Name, Action: "restore", Prompts: deployment.FormInput{"backup": nightly.Name}, By: "alice"})
	require.NoError(t, err)
	failed := f.WaitEnded(t, d.Name, task.TaskID)
	require.Equal(t, executor.TaskFailed, failed.Status, "a pruned backup cannot be restored")
	require.Contains(t, deploymenttest.HookStep(t, failed, "restore").Hook.Error, "list_backups lists them")
}
