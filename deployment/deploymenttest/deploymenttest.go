// Package deploymenttest is the deployment service's test harness, shared by
// the tests of package deployment (the operations and reads) and of package
// runner (the tasks on the local cluster): a Styrmin on a fresh database
// (app/apptest), valid installs of the bundled drivers, and waits and checks
// on tasks, releases and the cluster.
package deploymenttest

import (
	"context"
	"encoding/json"
	"fmt"
	"log"
	"log/slog"
	"strconv"
	"strings"
	"testing"
	"testing/fstest"
	"time"

	"github.com/jackc/pgx/v5/pgxpool"
	"github.com/stretchr/testify/require"
	"helm.sh/helm/v3/pkg/action"
	"helm.sh/helm/v3/pkg/cli"
	"k8s.io/client-go/rest"

	"github.com/styrmin/styrmin"
	"github.com/styrmin/styrmin/app/apptest"
	"github.com/styrmin/styrmin/catalog"
	"github.com/styrmin/styrmin/db"
	"github.com/styrmin/styrmin/deployment"
	"github.com/styrmin/styrmin/devcluster/kubetest"
	"github.com/styrmin/styrmin/drivers/bundled/bundledtest"
	"github.com/styrmin/styrmin/executor"
	"github.com/styrmin/styrmin/executor/executortest"
	"github.com/styrmin/styrmin/kube"
	"github.com/styrmin/styrmin/release"
)

// Fixture is what a service test works with: a Styrmin built by app.New
// (apptest).
type Fixture struct {
	Env     *apptest.Env
	Svc     *deployment.Service
	DBURL   string
	KeyText string
	Pool    *pgxpool.Pool
	Q       *db.Queries
	Catalog *catalog.Catalog
}

// Setup returns a service on a fresh database holding the bundled drivers,
// whose tasks nothing works. cluster may be nil (no cluster configured).
func Setup(t testing.TB, cluster *deployment.Cluster) Fixture {
	t.Helper()
	return NewFixture(t, apptest.Options{Cluster: cluster})
}

// NewFixture returns the fixture of the environment opts describe.
func NewFixture(t testing.TB, opts apptest.Options) Fixture {
	t.Helper()
	env := apptest.New(t, opts)
	return Fixture{Env: env, Svc: env.Deployments, DBURL: env.DatabaseURL, KeyText: env.SecretKey,
		Pool: env.Pool, Q: db.New(env.Pool), Catalog: env.Catalog}
}

// DeadCluster is a cluster that does not answer: calls to it fail within a second.
func DeadCluster(t testing.TB) *deployment.Cluster {
	t.Helper()
	config := &rest.Config{Host: "https://127.0.0.1:1", Timeout: time.Second}
	client, err := kube.New(config)
	require.NoError(t, err)
	cluster, err := deployment.NewCluster(client, deployment.ClusterOptions{}, slog.Default())
	require.NoError(t, err)
	return cluster
}

// HelloWeb is a valid install of the bundled Hello Web driver.
func HelloWeb(name string) *deployment.Install {
	return &deployment.Install{
		Driver: "hello-web", DriverVersion: "1.0.0", Name: name, AppVersion: "1.27.0",
		Parameters: deployment.FormInput{"site_title": "Shop", "replicas": "2"}, By: "alice",
	}
}

// Postgres is a valid install of the bundled PostgreSQL driver.
func Postgres(name string) *deployment.Install {
	return &deployment.Install{
		Driver: "postgresql", DriverVersion: "1.2.0", Name: name, AppVersion: "16.4.0",
		Parameters: deployment.FormInput{"password": "s3cret-password"}, By: "alice",
	}
}

// Redis is a valid install of the bundled Redis driver.
func Redis(name string) *deployment.Install {
	return &deployment.Install{
		Driver: "redis", DriverVersion: "1.0.0", Name: name, AppVersion: "7.4.0",
		Parameters: deployment.FormInput{"password": "s3cret-password"}, By: "alice",
	}
}

// EveryKind queues on svc (over pool) a task of each kind of
// deployment.TaskKinds for a new Hello Web deployment (HelloWeb(name)) and
// returns their ids by kind; nothing runs them. The stop names the web
// component, the start none (all), the action is fetch_page with path
// /index.html, the rollback goes back to a revision 1 (driver 1.0.0,
// application 1.26.0) recorded for it, the upgrade (an action's, so that no
// dry run needs a cluster) sets replicas to 3, a reconcile, and the delete
// comes last.
func EveryKind(t testing.TB, svc *deployment.Service, pool *pgxpool.Pool, name string) map[string]int64 {
	t.Helper()
	ctx := context.Background()
	q := db.New(pool)
	ids := map[string]int64{}
	queue := func(kind string, op deployment.Operation) {
		t.Helper()
		queued, err := svc.Queue(ctx, op)
		require.NoError(t, err, kind)
		ids[kind] = queued.TaskID
	}
	queue(deployment.KindInstall, HelloWeb(name))
	dep, err := svc.Get(ctx, name)
	require.NoError(t, err)
	require.NoError(t, q.InsertRevision(ctx, db.InsertRevisionParams{DeploymentID: dep.ID, Revision: 1, TaskID: ids[deployment.KindInstall],
		DriverVersion: "1.0.0", AppVersion: "1.26.0", Parameters: []byte(`{}`)}))
	hook, err := q.InsertStep(ctx, db.InsertStepParams{TaskID: ids[deployment.KindInstall], Kind: deployment.StepHook, Title: "an action"})
	require.NoError(t, err)
	queue(deployment.KindStop, &deployment.Stop{Name: name, Components: []string{"web"}, By: "alice"})
	queue(deployment.KindStart, &deployment.Start{Name: name, By: "alice"})
	queue(deployment.KindAction, &deployment.RunAction{Name: name, Action: "fetch_page", Prompts: deployment.JSONInput{"path": "/index.html"}, By: "alice"})
	queue(deployment.KindRollback, &deployment.Rollback{Name: name, Revision: 1, By: "alice"})
	queue(deployment.KindUpgrade, deployment.Linked{Caller: &deployment.Caller{DeploymentID: dep.ID, TaskID: ids[deployment.KindInstall], StepID: hook.ID},
		Op: &deployment.Upgrade{Parameters: deployment.JSONInput{"replicas": 3}}})
	queue(deployment.KindReconcile, &deployment.Reconcile{Name: name, By: "alice"})
	queue(deployment.KindDelete, &deployment.Delete{Name: name, Confirm: name, By: "alice"})
	require.Len(t, ids, len(deployment.TaskKinds()), "a task of every kind")
	return ids
}

// InsertTask stores a queued task of kind with inputs, stored JSON as a row
// may hold it (written by hand, or by another version of Styrmin), for the
// deployment of id; it returns the task's id.
func InsertTask(t testing.TB, pool *pgxpool.Pool, deploymentID int64, kind, inputs string) int64 {
	t.Helper()
	task, err := db.New(pool).InsertTask(context.Background(), db.InsertTaskParams{DeploymentID: deploymentID, Kind: kind, Inputs: []byte(inputs), CreatedBy: "alice"})
	require.NoError(t, err)
	return task.ID
}

// FieldsOf returns the per-field messages of an EINVALID error.
func FieldsOf(t *testing.T, err error) map[string]string {
	t.Helper()
	require.Equal(t, styrmin.EINVALID, styrmin.ErrorCode(err), "%v", err)
	var e *styrmin.Error
	require.ErrorAs(t, err, &e)
	return e.Fields
}

// MustGet returns deployment name, failing t when it cannot.
func MustGet(t *testing.T, f Fixture, name string) *deployment.Deployment {
	t.Helper()
	d, err := f.Svc.Get(context.Background(), name)
	require.NoError(t, err)
	return d
}

// ClusterFixture is a service on the local cluster.
type ClusterFixture struct {
	Fixture
	Cluster    *deployment.Cluster
	Kubeconfig string
}

// SetupClusterWithoutWorker returns a service deploying to the local
// Kubernetes; nothing works its tasks.
func SetupClusterWithoutWorker(t testing.TB) ClusterFixture {
	t.Helper()
	return NewClusterFixture(t, apptest.Options{})
}

// SetupCluster returns a service deploying to the local Kubernetes, with a
// worker working its tasks until the test ends and driver actions run for
// real: python3, the styrmin package, and the primitive endpoints served by
// the environment's server.
func SetupCluster(t testing.TB) ClusterFixture {
	t.Helper()
	f := NewClusterFixture(t, apptest.Options{Work: true, Actions: true})
	f.Env.Start(t)
	return f
}

// SetupClusterPods is SetupCluster with the pod runtime: driver actions run
// as pods of the action-runner image, which reach the environment's server
// where the cluster's pods reach the host.
func SetupClusterPods(t testing.TB) ClusterFixture {
	t.Helper()
	kubeconfig := kubetest.Kubeconfig(t)
	f := NewClusterFixture(t, apptest.Options{Work: true, Actions: true, ActionImage: kubetest.ActionRunnerImage(t), Kubeconfig: kubeconfig})
	f.Env.Start(t)
	return f
}

// NewClusterFixture returns the fixture of opts on the local Kubernetes.
func NewClusterFixture(t testing.TB, opts apptest.Options) ClusterFixture {
	t.Helper()
	opts.Kubeconfig = kubetest.Kubeconfig(t)
	f := NewFixture(t, opts)
	return ClusterFixture{Fixture: f, Cluster: f.Env.Cluster, Kubeconfig: opts.Kubeconfig}
}

// WaitEnded waits for a task to end.
func (f Fixture) WaitEnded(t testing.TB, name string, id int64) *deployment.Task {
	t.Helper()
	return executortest.Wait(t, func(ctx context.Context) (*deployment.Task, error) { return f.Svc.Task(ctx, name, id) }, (*deployment.Task).Ended)
}

// WaitTask waits for a task to end and requires it to succeed.
func (f ClusterFixture) WaitTask(t testing.TB, name string, q *deployment.Queued) *deployment.Task {
	t.Helper()
	task := f.WaitEnded(t, name, q.TaskID)
	require.Equal(t, executor.TaskSucceeded, task.Status, "%s task: %s\nsteps: %+v", task.Kind, task.Message, task.Steps)
	return task
}

// ImportCopy imports a copy of a bundled driver as version, with its
// spec.actions replaced by actionsYAML (a YAML list; "" removes them) and,
// when actionsPy is not "", its actions.py replaced (bundledtest.Copy).
func (f Fixture) ImportCopy(t *testing.T, driver, version, actionsYAML, actionsPy string) {
	t.Helper()
	_, err := f.Catalog.ImportFS(context.Background(), bundledtest.Copy(t, driver, version, actionsYAML, actionsPy), ".", "test")
	require.NoError(t, err)
}

// CleanUp removes a test's deployment from the cluster when the test ends,
// whatever state it is in.
func (f ClusterFixture) CleanUp(t testing.TB, name string) {
	t.Cleanup(func() { apptest.Uninstall(context.Background(), f.Svc, f.Cluster, name, name) })
}

// RequireHistory checks that Helm's history (what `helm history` shows) has
// revisions 1..n, the last one deployed.
func RequireHistory(t *testing.T, f ClusterFixture, d *deployment.Deployment, n int) {
	t.Helper()
	history, err := f.Cluster.Releases.History(context.Background(), d.Namespace, d.Name)
	require.NoError(t, err)
	require.Len(t, history, n)
	last := history[len(history)-1]
	require.Equal(t, n, last.Number)
	require.Equal(t, release.StatusDeployed, last.Status)
}

// RequireLive checks what the deployment page reads from the cluster: every
// component ready, every service at its in-cluster address, the history.
func RequireLive(t *testing.T, f ClusterFixture, d *deployment.Deployment) {
	t.Helper()
	live := f.Svc.Live(context.Background(), d, nil)
	require.Empty(t, live.Err)
	require.NotEmpty(t, live.Components)
	for _, c := range live.Components {
		require.NotEmpty(t, c.Workloads, "component %s", c.Name)
		for _, w := range c.Workloads {
			require.Equal(t, w.Replicas, w.ReadyReplicas, "%s %s", w.Kind, w.Name)
		}
	}
	require.NotEmpty(t, live.Services)
	for _, s := range live.Services {
		require.Regexp(t, `^[a-z0-9-]+\.`+d.Namespace+`\.svc:`+strconv.Itoa(s.Port)+`$`, s.Address, "service %s", s.Name)
	}
	require.Len(t, live.History, 1)
	require.True(t, live.History[0].Current)
	require.Equal(t, d.DriverVersion, live.History[0].DriverVersion)
}

// MustComponents reads each component's workloads from the cluster.
func MustComponents(t *testing.T, f ClusterFixture, d *deployment.Deployment) map[string][]kube.Workload {
	t.Helper()
	v, err := f.Catalog.Get(context.Background(), d.Driver, d.DriverVersion)
	require.NoError(t, err)
	out := map[string][]kube.Workload{}
	for _, c := range v.Driver.Spec.Components {
		ws, err := f.Cluster.Kube.ComponentWorkloads(context.Background(), d.Namespace, d.Name, c)
		require.NoError(t, err)
		require.NotEmpty(t, ws, "component %s has workloads", c.Name)
		out[c.Name] = ws
	}
	return out
}

// Queued returns a function that passes on a Queued task, failing t when
// queueing it failed: Queued(t)(svc.Install(...)).
func Queued(t testing.TB) func(*deployment.Queued, error) *deployment.Queued {
	return func(q *deployment.Queued, err error) *deployment.Queued {
		t.Helper()
		require.NoError(t, err)
		return q
	}
}

// Inputs are a task's typed inputs as T (*deployment.InstallInputs, ...),
// failing t when they are of another type or did not all read.
func Inputs[T deployment.TaskInputs](t testing.TB, task *deployment.Task) T {
	t.Helper()
	require.Empty(t, task.InputsUnread, "task %d's inputs read", task.ID)
	in, ok := task.Inputs.(T)
	require.True(t, ok, "task %d (%s) has inputs %T", task.ID, task.Kind, task.Inputs)
	return in
}

// HookStep is the hook step of the named action in a task.
func HookStep(t *testing.T, task *deployment.Task, action string) deployment.Step {
	t.Helper()
	for _, st := range task.Steps {
		if st.Kind == deployment.StepHook && st.Hook.Action == action {
			return st
		}
	}
	t.Fatalf("task %d has no hook step of action %s: %+v", task.ID, action, task.Steps)
	return deployment.Step{}
}

// LogText is a hook step's log as "LEVEL message" lines.
func LogText(st deployment.Step) string {
	var b strings.Builder
	for _, l := range st.Logs {
		b.WriteString(l.Level + " " + l.Message + "\n")
	}
	return b.String()
}

// HelmOutsideStyrmin is Helm's SDK on the local cluster, as `helm` run by
// someone else would use it, for namespace: it knows nothing of Styrmin.
func HelmOutsideStyrmin(t *testing.T, f ClusterFixture, namespace string) *action.Configuration {
	t.Helper()
	settings := cli.New()
	settings.KubeConfig = f.Kubeconfig
	settings.SetNamespace(namespace)
	cfg := new(action.Configuration)
	require.NoError(t, cfg.Init(settings.RESTClientGetter(), namespace, "secret", log.Printf))
	return cfg
}

// ChartDriver is a local driver, name at version, described as
// description, whose chart (1.0.0) has the one template objects.
func ChartDriver(name, version, description, objects string) fstest.MapFS {
	return fstest.MapFS{
		name + "/driver.styrmin.yml": {Data: fmt.Appendf(nil, `apiVersion: styrmin.io/v1
kind: Driver
metadata: {name: %[1]s}
spec:
  version: %[2]s
  supported_versions: ">=1.0.0"
  info: {title: %[1]s, description: %[3]s}
  helm:
    main: {location: ./chart, version: 1.0.0}
`, name, version, description)},
		name + "/chart/Chart.yaml":             {Data: []byte("apiVersion: v2\nname: " + name + "\nversion: 1.0.0\nappVersion: 1.0.0\n")},
		name + "/chart/templates/objects.yaml": {Data: []byte(objects)},
	}
}

// RanAction records a run of a manual action of deployment name as a
// worker would: a task, queued by alice, that ended with status, whose hook
// step's detail holds result (nil: the action returned nothing). It
// returns the task's id.
func RanAction(t testing.TB, svc *deployment.Service, pool *pgxpool.Pool, name, action string, prompts deployment.JSONInput, status executor.TaskStatus, result any) int64 {
	t.Helper()
	ctx := context.Background()
	queued, err := svc.Queue(ctx, &deployment.RunAction{Name: name, Action: action, Prompts: prompts, By: "alice"})
	require.NoError(t, err)
	q := db.New(pool)
	st, err := q.InsertStep(ctx, db.InsertStepParams{TaskID: queued.TaskID, Kind: deployment.StepHook, Title: action})
	require.NoError(t, err)
	detail := map[string]any{"action": action, "mode": "blocking"}
	if result != nil {
		detail["result"] = result
	}
	raw, err := json.Marshal(detail)
	require.NoError(t, err)
	require.NoError(t, q.EndStep(ctx, db.EndStepParams{ID: st.ID, Status: executor.StepSucceeded, Detail: raw}))
	_, err = pool.Exec(ctx, `UPDATE tasks SET status = $2, started_at = now(), ended_at = now(), secret_inputs = NULL WHERE id = $1`, queued.TaskID, status)
	require.NoError(t, err)
	return queued.TaskID
}
