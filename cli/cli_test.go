package cli_test

import (
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/styrmin/styrmin/api/client"
	"github.com/styrmin/styrmin/auth"
	"github.com/styrmin/styrmin/catalog"
	"github.com/styrmin/styrmin/cli"
	"github.com/styrmin/styrmin/cli/clitest"
	"github.com/styrmin/styrmin/handlers/handlerstest"
)

// user is someone running the client: their config folder and environment.
type user struct {
	dir string
	env map[string]string
}

// newUser is a user with an empty config folder and environment.
func newUser(t *testing.T) *user {
	return &user{dir: filepath.Join(t.TempDir(), "config"), env: map[string]string{}}
}

// result is what a command printed and its exit code.
type result struct {
	out, err string
	code     int
}

// run runs the client's command args as the styrmin binary does, with
// stdin as its input (no terminal).
func (u *user) run(t *testing.T, stdin string, args ...string) result {
	t.Helper()
	c := &cli.CLI{ConfigDir: u.dir, Getenv: func(k string) string { return u.env[k] }, Poll: 100 * time.Millisecond}
	r := clitest.Run(c, stdin, args...)
	return result{out: r.Out, err: r.Err, code: r.Code}
}

// ok runs args and requires exit code 0.
func (u *user) ok(t *testing.T, args ...string) string {
	t.Helper()
	r := u.run(t, "", args...)
	require.Equal(t, 0, r.code, "styrmin %s: %s", strings.Join(args, " "), r.err)
	return r.out
}

// as is a user whose environment logs them in to url with token.
func as(t *testing.T, url, token string) *user {
	u := newUser(t)
	u.env[cli.EnvURL], u.env[cli.EnvToken] = url, token
	return u
}

// jsonOf decodes a command's JSON output.
func jsonOf[T any](t *testing.T, out string) T {
	t.Helper()
	var v T
	require.NoError(t, json.Unmarshal([]byte(out), &v), out)
	return v
}

// itoa is n in decimal.
func itoa(n int64) string { return strconv.FormatInt(n, 10) }

// served is the app with the bundled drivers, served over HTTP.
func served(t *testing.T) (handlerstest.DeployApp, string) {
	d := handlerstest.SetupDeployments(t)
	srv := httptest.NewServer(d.Echo)
	t.Cleanup(srv.Close)
	return d, srv.URL
}

func TestLoginStoresTheServerAndTokenForTheUserAlone(t *testing.T) {
	t.Parallel()
	d, url := served(t)
	token := d.TokenFor(t, "opal", auth.Operator)
	u := newUser(t)

	r := u.run(t, "stp_not-a-token\n", "login", url)
	require.Equal(t, cli.ExitRefused, r.code, r.err)
	require.NoFileExists(t, filepath.Join(u.dir, "config.json"), "a refused token is not stored")

	r = u.run(t, token+"\n", "login", url+"/")
	require.Equal(t, 0, r.code, r.err)
	require.Contains(t, r.out, "Logged in to "+url+" as opal (operator)")
	info, err := os.Stat(filepath.Join(u.dir, "config.json"))
	require.NoError(t, err)
	require.Equal(t, os.FileMode(0o600), info.Mode().Perm(), "the token is readable by its user alone")
	dir, err := os.Stat(u.dir)
	require.NoError(t, err)
	require.Equal(t, os.FileMode(0o700), dir.Mode().Perm())

	// Logging in again over a file another program loosened keeps it private.
	require.NoError(t, os.Chmod(filepath.Join(u.dir, "config.json"), 0o644))
	require.Equal(t, 0, u.run(t, token, "login", url).code)
	info, err = os.Stat(filepath.Join(u.dir, "config.json"))
	require.NoError(t, err)
	require.Equal(t, os.FileMode(0o600), info.Mode().Perm())

	require.Empty(t, jsonOf[[]client.DeploymentSummary](t, u.ok(t, "deployments", "list", "-o", "json")),
		"the stored login serves the next commands")
}

func TestLoginWithAUsernameGetsATokenNamedAfterTheClientAndHost(t *testing.T) {
	t.Parallel()
	d, url := served(t)
	_, _ = d.As(t, "opal", auth.Operator)
	u := newUser(t)

	r := u.run(t, "wrong password\n", "login", url, "--username", "opal")
	require.Equal(t, cli.ExitRefused, r.code, r.err)
	require.Contains(t, r.err, "Wrong username or password, or the user is disabled.")
	require.NoFileExists(t, filepath.Join(u.dir, "config.json"))
	r = u.run(t, "\n", "login", url, "--username", "opal")
	require.Equal(t, cli.ExitUsage, r.code, "an empty password is not sent: %s", r.err)

	r = u.run(t, handlerstest.TestPassword+"\n", "login", url, "-u", "opal")
	require.Equal(t, 0, r.code, r.err)
	require.Contains(t, r.out, "Logged in to "+url+" as opal (operator)")
	tokens := jsonOf[struct{ Items []client.APIToken }](t, string(callAs(t, url, storedToken(t, u), "/tokens")))
	host, err := os.Hostname()
	require.NoError(t, err)
	require.Len(t, tokens.Items, 1)
	require.Equal(t, "styrmin login on "+host, tokens.Items[0].Name)
	require.NotNil(t, tokens.Items[0].ExpiresAt, "a token from a password lasts 30 days")

	// STYRMIN_PASSWORD stands in for the prompt; the input is not read.
	scripted := newUser(t)
	scripted.env[cli.EnvPassword] = handlerstest.TestPassword
	r = scripted.run(t, "not the password\n", "login", url, "--username", "opal")
	require.Equal(t, 0, r.code, r.err)
	require.NotEqual(t, storedToken(t, u), storedToken(t, scripted), "each login has its own token")
}

// storedToken is the token in u's stored login.
func storedToken(t *testing.T, u *user) string {
	t.Helper()
	data, err := os.ReadFile(filepath.Join(u.dir, "config.json"))
	require.NoError(t, err)
	return jsonOf[cli.Login](t, string(data)).Token
}

// callAs GETs the API's path at url with token and returns the answer's body.
func callAs(t *testing.T, url, token, path string) []byte {
	t.Helper()
	status, body := handlerstest.CallServer(t, url, token, http.MethodGet, path, nil)
	require.Equal(t, http.StatusOK, status, "%s", body)
	return body
}

func TestEnvironmentOverridesTheStoredLogin(t *testing.T) {
	t.Parallel()
	d, url := served(t)
	u := newUser(t)
	r := u.run(t, "", "deployments", "list")
	require.Equal(t, cli.ExitUsage, r.code)
	require.Contains(t, r.err, "Not logged in: run styrmin login URL, or set STYRMIN_URL and STYRMIN_TOKEN")

	require.Equal(t, 0, u.run(t, d.TokenFor(t, "opal", auth.Operator), "login", url).code)
	u.env[cli.EnvToken] = "stp_revoked-or-wrong"
	require.Equal(t, cli.ExitRefused, u.run(t, "", "deployments", "list").code, "STYRMIN_TOKEN wins over the stored token")
	u.env[cli.EnvToken] = d.TokenFor(t, "rex", auth.ReadOnly)
	require.Equal(t, 0, u.run(t, "", "deployments", "list").code)
}

func TestDeployQueuesAnInstallThatTheReadsShow(t *testing.T) {
	t.Parallel()
	d, url := served(t)
	op := as(t, url, d.TokenFor(t, "opal", auth.Operator))

	out := op.ok(t, "deploy", "hello-web", "web1", "--set", "site_title=From the CLI", "--set", "replicas=1", "--set", "show_version=false")
	require.Regexp(t, `^Queued install of web1 as task \d+: styrmin tasks wait \d+\n$`, out)
	accepted := jsonOf[client.TaskAccepted](t, op.ok(t, "deploy", "hello-web", "web2", "--version", "1.0.0", "-n", "web-two", "-o", "json"))
	require.Equal(t, client.Install, accepted.Task.Kind)
	require.Equal(t, "web2", accepted.Task.Deployment)

	list := jsonOf[[]client.DeploymentSummary](t, op.ok(t, "deployments", "list", "--output", "json"))
	require.Len(t, list, 2)
	require.Equal(t, "web1", list[0].Name)
	require.Equal(t, "web-two", list[1].Namespace)
	filtered := jsonOf[[]client.DeploymentSummary](t, op.ok(t, "deployments", "list", "--search", "WEB2", "--driver", "hello-web", "--namespace", "web-two", "--drifted", "false", "-o", "json"))
	require.Len(t, filtered, 1, "the filters go to the server")
	require.Equal(t, "web2", filtered[0].Name)
	require.Empty(t, jsonOf[[]client.DeploymentSummary](t, op.ok(t, "deployments", "list", "--health", "Degraded", "-o", "json")), "no health read yet")
	table := op.ok(t, "deployments", "list")
	require.Regexp(t, `(?m)^NAME\s+NAMESPACE\s+DRIVER`, table)
	require.Regexp(t, `(?m)^web1\s+web1\s+hello-web\s+1\.0\.0`, table)

	got := jsonOf[client.Deployment](t, op.ok(t, "deployments", "get", "web1", "-o", "json"))
	require.Equal(t, "From the CLI", got.Parameters["site_title"])
	require.Equal(t, float64(1), got.Parameters["replicas"], "a number parameter given as text is a number")
	require.Equal(t, false, got.Parameters["show_version"], "--set NAME=false is a boolean")
	require.Contains(t, op.ok(t, "deployments", "get", "web1", "-o", "yaml"), "site_title: From the CLI")

	task := jsonOf[client.Task](t, op.ok(t, "tasks", "get", itoa(accepted.Task.Id), "-o", "json"))
	require.Equal(t, client.TaskStatusQueued, task.Status, "nothing runs the tasks here")
	inputs, err := task.Inputs.AsInstallInputs()
	require.NoError(t, err)
	require.Equal(t, "web-two", inputs.Namespace, "-o json has the task's typed inputs")
	table = op.ok(t, "tasks", "get", itoa(accepted.Task.Id))
	require.Regexp(t, `(?m)^Driver version:\s+1\.0\.0\n.*\nNamespace:\s+web-two$`, table, "the table reads them by the task's kind")

	r := op.run(t, "", "deploy", "hello-web", "web3", "--team", "nowhere")
	require.NotEqual(t, 0, r.code)
	require.Contains(t, r.err, `team: there is no team named "nowhere"`, "--team names the deployment's team, checked by the server")
	op.ok(t, "deploy", "hello-web", "web3", "--team", "default")
}

func TestValuesFileAndSetMerge(t *testing.T) {
	t.Parallel()
	d, url := served(t)
	op := as(t, url, d.TokenFor(t, "opal", auth.Operator))
	file := filepath.Join(t.TempDir(), "values.yaml")
	require.NoError(t, os.WriteFile(file, []byte("site_title: From the file\nreplicas: 3\n"), 0o600))
	op.ok(t, "deploy", "hello-web", "web1", "--values", file, "--set", "replicas=2")
	got := jsonOf[client.Deployment](t, op.ok(t, "deployments", "get", "web1", "-o", "json"))
	require.Equal(t, "From the file", got.Parameters["site_title"])
	require.Equal(t, float64(2), got.Parameters["replicas"], "--set wins over the file")

	require.NoError(t, os.WriteFile(file, []byte("- a list\n"), 0o600))
	r := op.run(t, "", "deploy", "hello-web", "web2", "--values", file)
	require.Equal(t, cli.ExitUsage, r.code)
	require.Contains(t, r.err, "is not a YAML mapping of parameter names to values")
}

func TestExitCodesSayWhatFailed(t *testing.T) {
	t.Parallel()
	d, url := served(t)
	op := as(t, url, d.TokenFor(t, "opal", auth.Operator))
	reader := as(t, url, d.TokenFor(t, "rex", auth.ReadOnly))
	down := httptest.NewServer(http.NotFoundHandler())
	down.Close()
	tests := []struct {
		name string
		who  *user
		args []string
		code int
		says string
	}{
		{"an unknown deployment", op, []string{"deployments", "get", "nope"}, cli.ExitNotFound, "nope"},
		{"an unknown task", op, []string{"tasks", "get", "999999"}, cli.ExitNotFound, ""},
		{"an unknown driver", op, []string{"deploy", "no-such-driver", "x"}, cli.ExitNotFound, "no-such-driver"},
		{"a read-only user's change", reader, []string{"deploy", "hello-web", "web1"}, cli.ExitRefused, "needs the operator role"},
		{"a parameter the driver does not have", op, []string{"deploy", "hello-web", "web1", "--set", "colour=red"}, cli.ExitRefused, "colour"},
		{"a missing argument", op, []string{"deploy", "hello-web"}, cli.ExitUsage, "accepts 2 arg(s)"},
		{"an unknown flag", op, []string{"deployments", "list", "--colour"}, cli.ExitUsage, "unknown flag: --colour"},
		{"an unknown output", op, []string{"deployments", "list", "-o", "xml"}, cli.ExitUsage, `"xml" is not an output format`},
		{"a task id that is no number", op, []string{"tasks", "wait", "latest"}, cli.ExitUsage, "is not a task id"},
		{"a --set without =", op, []string{"deploy", "hello-web", "web1", "--set", "replicas"}, cli.ExitUsage, "is not NAME=VALUE"},
		{"a rollback without its revision", op, []string{"rollback", "web1"}, cli.ExitUsage, "Give --revision N"},
		{"a health that is no health", op, []string{"deployments", "list", "--health", "Sick"}, cli.ExitRefused, "health"},
		{"a drifted that is neither true nor false", op, []string{"deployments", "list", "--drifted", "maybe"}, cli.ExitUsage, "--drifted is true or false"},
		{"a server that is down", as(t, down.URL, "stp_x"), []string{"deployments", "list"}, cli.ExitUnavailable, "Cannot reach " + down.URL},
		{"an address that is no server", as(t, "ftp://example.com", "stp_x"), []string{"deployments", "list"}, cli.ExitUsage, "is not a server address"},
	}
	for _, tt := range tests {
		r := tt.who.run(t, "", tt.args...)
		require.Equal(t, tt.code, r.code, "%s: exit code (%s)", tt.name, r.err)
		require.Contains(t, r.err, tt.says, tt.name)
	}
	require.Empty(t, jsonOf[[]client.DeploymentSummary](t, op.ok(t, "deployments", "list", "-o", "json")), "nothing was installed")
}

func TestTasksWaitExitsFiveForATaskThatDidNotSucceed(t *testing.T) {
	t.Parallel()
	d, url := served(t)
	token := d.TokenFor(t, "opal", auth.Operator)
	op := as(t, url, token)
	accepted := jsonOf[client.TaskAccepted](t, op.ok(t, "deploy", "hello-web", "web1", "-o", "json"))
	id := itoa(accepted.Task.Id)
	rec := d.Call(t, token, http.MethodPost, "/api/v1/tasks/"+id+"/cancel", nil)
	require.Equal(t, http.StatusOK, rec.Code, rec.Body.String())

	r := op.run(t, "", "tasks", "wait", id)
	require.Equal(t, cli.ExitTaskFailed, r.code, r.err)
	require.Contains(t, r.out, "Task "+id+" (install of web1) canceled")

	r = op.run(t, "", "tasks", "logs", id, "-o", "json")
	require.Equal(t, cli.ExitTaskFailed, r.code)
	require.Equal(t, client.TaskStatusCanceled, jsonOf[client.Task](t, r.out).Status, "with -o json the output is the ended task alone")
}

func TestDriversListGetAndUpload(t *testing.T) {
	t.Parallel()
	d, url := served(t)
	admin := as(t, url, d.TokenFor(t, "ada", auth.Admin))
	op := as(t, url, d.TokenFor(t, "opal", auth.Operator))
	archive, err := catalog.Pack(handlerstest.SampleFiles("2.0.0", "", "# Sample"))
	require.NoError(t, err)
	file := filepath.Join(t.TempDir(), "sample.tar.gz")
	require.NoError(t, os.WriteFile(file, archive, 0o600))

	r := op.run(t, "", "drivers", "upload", file)
	require.Equal(t, cli.ExitRefused, r.code)
	require.Contains(t, r.err, "needs the admin role")
	require.Equal(t, "Imported  sample 2.0.0\n", admin.ok(t, "drivers", "upload", file))
	require.Contains(t, admin.ok(t, "drivers", "upload", file), "Unchanged")

	names := map[string]string{}
	for _, e := range jsonOf[[]client.DriverSummary](t, op.ok(t, "drivers", "list", "-o", "json")) {
		names[e.Name] = e.Version
	}
	require.Equal(t, "2.0.0", names["sample"])
	require.Contains(t, names, "hello-web")
	require.Equal(t, []string{"2.0.0"}, jsonOf[client.Driver](t, op.ok(t, "drivers", "get", "sample", "-o", "json")).Versions)
	v := jsonOf[client.DriverVersion](t, op.ok(t, "drivers", "get", "sample", "--version", "2.0.0", "-o", "json"))
	require.Equal(t, "ada", v.CreatedBy)

	bad, err := catalog.Pack(handlerstest.SampleFiles("not-a-version", "", ""))
	require.NoError(t, err)
	require.NoError(t, os.WriteFile(file, bad, 0o600))
	r = admin.run(t, "", "drivers", "upload", file)
	require.Equal(t, cli.ExitRefused, r.code)
	require.Contains(t, r.err, "breaks the driver contract")
	require.Regexp(t, `\n  driver\.styrmin\.yml:\d+`, r.err, "every problem with its line")
}

func TestLogsPrintsAContainersLinesRedactedAndOnlyTheReleasesPods(t *testing.T) {
	t.Parallel()
	d := handlerstest.SetupDeploymentsOn(t, handlerstest.PgLogging(t, "orders", "2026-12-05T10:00:01Z starting\n2026-12-05T10:00:02Z connecting with "+handlerstest.PgSecret+"\n"))
	d.Install(t, handlerstest.PgInstall("orders"))
	srv := httptest.NewServer(d.Echo)
	t.Cleanup(srv.Close)
	u := as(t, srv.URL, d.TokenFor(t, "reta", auth.ReadOnly))

	require.Equal(t, "starting\nconnecting with <redacted>\n", u.ok(t, "logs", "orders", "orders-postgresql-0", "-c", "postgresql", "--tail", "5"))
	r := u.run(t, "", "logs", "orders", "stray-0")
	require.Equal(t, cli.ExitNotFound, r.code, r.err)
	require.Contains(t, r.err, "has no pod stray-0")
}
