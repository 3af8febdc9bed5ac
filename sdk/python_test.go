package sdk_test

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/styrmin/styrmin/actions"
	"github.com/styrmin/styrmin/handlers/action"
	"github.com/styrmin/styrmin/sdk"
)

// TestPythonPackage runs the package's own unittest suite (sdk/python/tests), so
// that make test covers it.
func TestPythonPackage(t *testing.T) {
	t.Parallel()
	cmd := exec.Command("python3", "-B", "-m", "unittest", "discover", "-s", "python/tests", "-t", "python")
	cmd.Env = append(os.Environ(), "PYTHONDONTWRITEBYTECODE=1")
	out, err := cmd.CombinedOutput()
	require.NoError(t, err, "python3 -m unittest discover -s sdk/python/tests -t sdk/python:\n%s", out)
	t.Logf("%s", lastLine(string(out)))
}

func TestInstallWritesThePackage(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	require.NoError(t, sdk.Install(dir))
	for _, name := range []string{"__init__.py", "run.py", "primitives.py", "errors.py", "_api.py", "_reference.py", "client.py"} {
		want, err := os.ReadFile(filepath.Join("python", "styrmin", name))
		require.NoError(t, err)
		got, err := os.ReadFile(filepath.Join(dir, "styrmin", name))
		require.NoError(t, err)
		require.Equal(t, string(want), string(got), name)
	}
	entries, err := os.ReadDir(filepath.Join(dir, "styrmin"))
	require.NoError(t, err)
	for _, e := range entries {
		require.True(t, strings.HasSuffix(e.Name(), ".py"), "only modules are shipped: %s", e.Name())
	}

	// The installed copy runs an action.
	bundle := t.TempDir()
	require.NoError(t, os.WriteFile(filepath.Join(bundle, "actions.py"), []byte("def hello(name):\n    print('hello', name)\n    return 42\n"), 0o644))
	cmd := exec.Command("python3", "-B", "-m", "styrmin.run")
	cmd.Dir = bundle
	cmd.Env = []string{"PATH=" + os.Getenv("PATH"), "PYTHONPATH=" + bundle + string(os.PathListSeparator) + dir, "STYRMIN_ACTION_FUNCTION=actions:hello"}
	cmd.Stdin = strings.NewReader(`{"name": "world"}`)
	out, err := cmd.Output()
	require.NoError(t, err)
	lines := strings.Split(strings.TrimSpace(string(out)), "\n")
	require.Len(t, lines, 2)
	require.Contains(t, lines[0], `"msg": "hello world"`)
	require.Equal(t, `{"t": "result", "value": 42}`, lines[1])
}

// TestTheRunnerCutsRecordsToTheExecutorsLineLimit: the runner's copy of the
// protocol's line limit is the executor's, so that no record it writes is cut
// into a line that no longer parses.
func TestTheRunnerCutsRecordsToTheExecutorsLineLimit(t *testing.T) {
	t.Parallel()
	require.Equal(t, strconv.Itoa(actions.MaxLineBytes), pythonConstant(t, "styrmin.run", "MAX_LINE_BYTES"))
	require.Equal(t, "'"+actions.LineCut+"'", pythonConstant(t, "styrmin.run", "MESSAGE_CUT"), "a cut record ends as a cut line does")
}

// TestExecuteCommandsWaitsLongerThanTheServer: the client's wait on POST jobs
// covers everything the server may do beyond the Job's timeout, and a minute more.
func TestExecuteCommandsWaitsLongerThanTheServer(t *testing.T) {
	t.Parallel()
	want := action.CommandsCallLimit(0) + time.Minute
	require.Equal(t, strconv.Itoa(int(want.Seconds())), pythonConstant(t, "styrmin.primitives", "JOB_CALL_MARGIN"))
}

// pythonConstant returns the repr of a constant of a module of the package.
func pythonConstant(t *testing.T, module, name string) string {
	t.Helper()
	cmd := exec.Command("python3", "-B", "-c", fmt.Sprintf("import %s as m; print(repr(m.%s))", module, name))
	cmd.Env = append(os.Environ(), "PYTHONPATH=python")
	out, err := cmd.Output()
	require.NoError(t, err)
	return strings.TrimSpace(string(out))
}

func TestReferenceDocumentsEveryPrimitive(t *testing.T) {
	t.Parallel()
	ref, err := sdk.Reference(t.Context())
	require.NoError(t, err)
	text := string(ref)
	require.True(t, strings.HasPrefix(text, "## Action primitives\n"))
	for _, heading := range []string{
		"#### `styrmin.deployment()`",
		"#### `styrmin.stop_components(names=None)`",
		"#### `styrmin.start_components(names=None)`",
		"#### `styrmin.upgrade_deployment_version(version, prompts=None)`",
		"#### `styrmin.execute_commands(commands, *, image, env=None, secret_env=None, timeout=600)`",
		"#### `styrmin.Deployment(name, namespace, release, driver, driver_version, app_version, parameters, components)`",
		"#### `styrmin.TaskResult(id, kind, status, message, result)`",
		"#### `styrmin.ExecResult(job, succeeded, deleted_job, output)`",
		"#### `styrmin.TaskFailed` (StyrminError)",
		"#### `styrmin.CommandsFailed` (StyrminError)",
	} {
		require.Contains(t, text, heading+"\n")
	}
}

// lastLine returns the last non-empty line of s.
func lastLine(s string) string {
	lines := strings.Split(strings.TrimSpace(s), "\n")
	return lines[len(lines)-1]
}
