package actions_test

import (
	"bufio"
	"context"
	"crypto/sha256"
	"encoding/json"
	"fmt"
	"io"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/jackc/pgx/v5/pgconn"
	"github.com/stretchr/testify/require"

	"github.com/styrmin/styrmin/actions"
	"github.com/styrmin/styrmin/db/dbtest"
	"github.com/styrmin/styrmin/drivers"
	"github.com/styrmin/styrmin/sdk"
)

// fakeSecret stands for the server's secrets in the environment of a server
// (this test binary run as a helper, see TestMain) and of this test process,
// which runs the actions.
const fakeSecret = "styrmin-fake-secret-9d1f0c"

// reach is what the attacking action (testdata/attack.py) reached.
type reach struct {
	ProcessesSeen      int      `json:"processes_seen"`
	OwnEnvironmentRead bool     `json:"own_environment_read"`
	EnvironmentsRead   []int    `json:"environments_read"`
	SecretSeenIn       []int    `json:"secret_seen_in"`
	ServerEnvironment  []string `json:"server_environment"`
	Files              []string `json:"files"`
	Database           []string `json:"database"`
	WritesTried        int      `json:"writes_tried"`
	Writes             []string `json:"writes"`
	Daemon             int      `json:"daemon"`
}

// TestAProcessActionReachesNothingOfTheServer runs a driver action that
// tries everything a process of the server's machine could try for the
// server's secrets: it reads the environment of every process it sees and of
// the server's process, the key and kubeconfig files (with the server's
// modes), logs in to the database by its socket and port, writes into the SDK
// and its bundle, and leaves a process behind. It reaches none of it.
func TestAProcessActionReachesNothingOfTheServer(t *testing.T) {
	if !actions.Sandboxed() {
		t.Skip("this test process cannot build a sandbox: " + actions.MissingProtections)
	}
	t.Setenv("STYRMIN_SECRET_KEY", fakeSecret)
	server := startServer(t, exec.Command(os.Args[0]), "server") // root, not shielded: the sandbox alone protects it
	serverFiles, err := os.MkdirTemp("", "styrmin-server-")
	require.NoError(t, err)
	t.Cleanup(func() { os.RemoveAll(serverFiles) })
	require.NoError(t, os.Chmod(serverFiles, 0o755)) // only the files' own modes keep them
	keyFile, kubeconfig := filepath.Join(serverFiles, "secret-key"), filepath.Join(serverFiles, "kubeconfig")
	require.NoError(t, os.WriteFile(keyFile, []byte(fakeSecret), 0o600))
	require.NoError(t, os.WriteFile(kubeconfig, []byte("token: "+fakeSecret), 0o600))
	database, err := pgconn.ParseConfig(dbtest.NewURL(t))
	require.NoError(t, err)
	socket := filepath.Join(database.Host, fmt.Sprintf(".s.PGSQL.%d", database.Port))
	if !strings.HasPrefix(database.Host, "/") {
		socket = "/var/run/postgresql/.s.PGSQL.5432"
	}
	sdkDir := t.TempDir()
	require.NoError(t, sdk.Install(sdkDir))
	sdkBefore := digest(t, sdkDir)
	attack, err := os.ReadFile("testdata/attack.py")
	require.NoError(t, err)
	marker := fmt.Sprintf("styrmin-daemon-%d-%d", os.Getpid(), time.Now().UnixNano())

	python, err := actions.FindPython(context.Background())
	require.NoError(t, err)
	var lines []actions.Line
	out, err := actions.Run(context.Background(), actions.Spec{
		Python: python, SDK: sdkDir, Files: map[string][]byte{"attack.py": attack},
		Action: drivers.Action{Name: "attack", Function: "attack:attack", Timeout: "2m"},
		Prompts: map[string]any{
			"secret": fakeSecret, "server_pid": server.Process.Pid, "key_file": keyFile, "kubeconfig": kubeconfig,
			"db_socket": socket, "db_port": int(database.Port), "db_user": database.User, "db_name": database.Database,
			"host_sdk": sdkDir, "marker": marker,
		},
		Env: actions.Env{APIURL: "http://127.0.0.1:1", Token: "sta_test", Deployment: "web", Namespace: "web", Release: "web"},
	}, func(l actions.Line) { lines = append(lines, l) })
	require.NoError(t, err)
	require.False(t, out.Failed(), "%s\n%v", out.ErrorLine(time.Minute), lines)
	var got reach
	require.NoError(t, json.Unmarshal(out.Result, &got))

	require.Positive(t, got.ProcessesSeen, "the action saw no process, not even itself")
	require.True(t, got.OwnEnvironmentRead, "the action could not read its own environment: the probe proves nothing")
	require.Empty(t, got.EnvironmentsRead, "the action read the environment of other processes")
	require.Empty(t, got.SecretSeenIn, "the action found the server's secret in these processes' environment")
	require.Empty(t, got.ServerEnvironment, "the action read the server's process")
	require.Empty(t, got.Files, "the action read the server's files")
	require.Empty(t, got.Database, "the action logged in to the database")
	require.GreaterOrEqual(t, got.WritesTried, 5, "the action tried too few writes")
	require.Empty(t, got.Writes, "the action wrote into the SDK or its bundle")
	require.Equal(t, sdkBefore, digest(t, sdkDir), "the server's SDK changed")
	require.Positive(t, got.Daemon, "the action started no process to leave behind")
	waitGone(t, marker)
}

// digest is the SHA-256 of every file under dir, by path.
func digest(t *testing.T, dir string) map[string][32]byte {
	t.Helper()
	sums := map[string][32]byte{}
	require.NoError(t, filepath.WalkDir(dir, func(path string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		data, err := os.ReadFile(path)
		sums[path] = sha256.Sum256(data)
		return err
	}))
	return sums
}

// waitGone waits until no process of the machine has marker in its command
// line; the run has ended, so a process still there after a minute was left
// behind.
func waitGone(t *testing.T, marker string) {
	t.Helper()
	deadline := time.Now().Add(time.Minute)
	for {
		left := processesWith(marker)
		if len(left) == 0 {
			return
		}
		require.True(t, time.Now().Before(deadline), "processes %v that the action left still run", left)
		time.Sleep(10 * time.Millisecond)
	}
}

// processesWith returns the live processes whose command line holds marker.
func processesWith(marker string) []int {
	paths, _ := filepath.Glob("/proc/[0-9]*/cmdline")
	var pids []int
	for _, path := range paths {
		cmdline, err := os.ReadFile(path)
		if err != nil || !strings.Contains(string(cmdline), marker) {
			continue
		}
		pid, _ := strconv.Atoi(strings.Split(path, "/")[2])
		if !ended(pid) {
			pids = append(pids, pid)
		}
	}
	return pids
}

// helperVar selects a role of the test binary run as a helper (see TestMain).
const helperVar = "STYRMIN_ACTIONS_TEST_HELPER"

// TestMain lets the test binary play a shielded or an unshielded server, or
// an action reading another process's environment, for
// TestAnActionOfTheServersUserCannotReadTheServersEnvironment.
func TestMain(m *testing.M) {
	switch os.Getenv(helperVar) {
	case "":
		os.Exit(m.Run())
	case "shielded-server":
		if err := actions.ShieldServer("STYRMIN_SECRET_KEY"); err != nil {
			fmt.Println(err)
			os.Exit(1)
		}
		serve()
	case "server":
		serve()
	case "reader":
		_, err := os.ReadFile("/proc/" + os.Args[1] + "/environ")
		fmt.Println(err)
	}
	os.Exit(0)
}

// serve says it is ready and waits for its standard input to close.
func serve() {
	fmt.Println("ready")
	io.Copy(io.Discard, os.Stdin) //nolint:errcheck // any end ends the helper
}

// TestAnActionOfTheServersUserCannotReadTheServersEnvironment: the server
// marks itself not dumpable (actions.ShieldServer), so that a process of its
// own user, such as an action run without a sandbox, cannot read its
// environment, where the secrets it was started with stay. A server that did
// not do so is read, which shows that the reading works.
func TestAnActionOfTheServersUserCannotReadTheServersEnvironment(t *testing.T) {
	if os.Geteuid() != 0 {
		t.Skip("runs the server and the action as nobody, which needs root")
	}
	binary := copyForNobody(t)
	require.ErrorContains(t, readEnvironmentOf(t, binary, "shielded-server"), "permission denied")
	require.NoError(t, readEnvironmentOf(t, binary, "server"), "an unshielded server's environment could not be read: the test proves nothing")
}

// copyForNobody copies the test binary where nobody may run it.
func copyForNobody(t *testing.T) string {
	t.Helper()
	dir, err := os.MkdirTemp("", "styrmin-actions-test-")
	require.NoError(t, err)
	t.Cleanup(func() { os.RemoveAll(dir) })
	require.NoError(t, os.Chmod(dir, 0o755))
	self, err := os.ReadFile(os.Args[0])
	require.NoError(t, err)
	binary := filepath.Join(dir, "actions.test")
	require.NoError(t, os.WriteFile(binary, self, 0o755))
	return binary
}

// readEnvironmentOf starts binary as a server of role (with a secret in its
// environment) as nobody, then another process of nobody that reads its
// environment, and returns the reader's error.
func readEnvironmentOf(t *testing.T, binary, role string) error {
	t.Helper()
	server := startServer(t, asNobody(binary), role)
	reader := asNobody(binary, strconv.Itoa(server.Process.Pid))
	reader.Env = []string{helperVar + "=reader"}
	out, err := reader.Output()
	require.NoError(t, err)
	if result := strings.TrimSpace(string(out)); result != "<nil>" {
		return fmt.Errorf("%s", result)
	}
	return nil
}

// startServer starts cmd, the test binary, as a server of role with a secret
// in its environment, and returns once it is ready; it ends with the test.
func startServer(t *testing.T, cmd *exec.Cmd, role string) *exec.Cmd {
	t.Helper()
	cmd.Env = []string{helperVar + "=" + role, "STYRMIN_SECRET_KEY=" + fakeSecret}
	stdin, err := cmd.StdinPipe()
	require.NoError(t, err)
	stdout, err := cmd.StdoutPipe()
	require.NoError(t, err)
	require.NoError(t, cmd.Start())
	t.Cleanup(func() { stdin.Close(); cmd.Wait() }) //nolint:errcheck // it ends when its input does
	ready, _ := bufio.NewReader(stdout).ReadString('\n')
	require.Equal(t, "ready\n", ready, "the %s did not start", role)
	return cmd
}

// asNobody is binary run with args as the user nobody.
func asNobody(binary string, args ...string) *exec.Cmd {
	cmd := exec.Command(binary, args...)
	cmd.Dir = "/"
	cmd.SysProcAttr = &syscall.SysProcAttr{Credential: &syscall.Credential{Uid: 65534, Gid: 65534}}
	return cmd
}

// runLimits runs the function fn of testdata/limits.py in a sandbox with
// prompts and returns its outcome and lines.
func runLimits(t *testing.T, fn string, prompts map[string]any) (actions.Outcome, []actions.Line) {
	t.Helper()
	var lines []actions.Line
	out := runLimitsUntil(context.Background(), t, fn, prompts, func(l actions.Line) { lines = append(lines, l) })
	return out, lines
}

// runLimitsUntil runs the function fn of testdata/limits.py in a sandbox
// with prompts, until it ends or ctx does, and gives sink its lines.
func runLimitsUntil(ctx context.Context, t *testing.T, fn string, prompts map[string]any, sink func(actions.Line)) actions.Outcome {
	t.Helper()
	if !actions.Sandboxed() {
		t.Skip("this test process cannot build a sandbox: " + actions.MissingProtections)
	}
	module, err := os.ReadFile("testdata/limits.py")
	require.NoError(t, err)
	python, err := actions.FindPython(context.Background())
	require.NoError(t, err)
	sdkDir := t.TempDir()
	require.NoError(t, sdk.Install(sdkDir))
	out, err := actions.Run(ctx, actions.Spec{
		Python: python, SDK: sdkDir, Files: map[string][]byte{"limits.py": module},
		Action:  drivers.Action{Name: fn, Function: "limits:" + fn, Timeout: "3m"},
		Prompts: prompts,
		Env:     actions.Env{APIURL: "http://127.0.0.1:1", Token: "sta_test", Deployment: "web", Namespace: "web", Release: "web"},
	}, sink)
	require.NoError(t, err)
	return out
}

// TestAForkBombStopsAtTheProcessLimit: an action that starts processes
// without end is refused more than actions.LimitProcesses; its run fails
// with the error of the refused fork, its processes are gone when it ends,
// and this process (the server) still starts processes.
func TestAForkBombStopsAtTheProcessLimit(t *testing.T) {
	t.Parallel()
	name := fmt.Sprintf("bomb%d", time.Now().UnixNano()%1e10) // a process name: at most 15 bytes
	out, lines := runLimits(t, "fork_bomb", map[string]any{"name": name})
	require.True(t, out.Failed(), "%v", lines)
	require.Contains(t, out.ErrorLine(time.Minute), "BlockingIOError: [Errno 11] Resource temporarily unavailable")
	started := 0
	for _, l := range lines {
		if n, ok := strings.CutPrefix(l.Message, "started "); ok {
			started, _ = strconv.Atoi(n)
		}
	}
	require.Positive(t, started, "the bomb started nothing: the test proves nothing")
	require.Less(t, started, actions.LimitProcesses)
	deadline := time.Now().Add(time.Minute)
	for left := processesNamed(name); len(left) > 0; left = processesNamed(name) {
		require.True(t, time.Now().Before(deadline), "processes %v of the bomb still run", left)
		time.Sleep(10 * time.Millisecond)
	}
	require.NoError(t, exec.Command("true").Run(), "the server cannot start a process")
}

// TestAForkBombStarvesNoOtherAction: while one action holds every process
// its limit allows, another action, run at the same time, starts processes
// as it likes: each run is a user of its own, with a limit of its own.
func TestAForkBombStarvesNoOtherAction(t *testing.T) {
	t.Parallel()
	ctx, stopBomb := context.WithCancel(context.Background())
	defer stopBomb()
	atLimit := make(chan struct{})
	bombEnded := make(chan actions.Outcome, 1)
	go func() {
		var once sync.Once
		bombEnded <- runLimitsUntil(ctx, t, "fork_bomb_holding", nil, func(l actions.Line) {
			if strings.HasPrefix(l.Message, "holding ") {
				once.Do(func() { close(atLimit) })
			}
		})
	}()
	select {
	case <-atLimit:
	case out := <-bombEnded:
		t.Fatalf("the bomb ended before it held its limit: %+v", out)
	}

	out, lines := runLimits(t, "start_processes", map[string]any{"count": 32})
	require.False(t, out.Failed(), "another action could not start processes while the bomb held its limit: %v", lines)
	require.JSONEq(t, "32", string(out.Result))
	stopBomb()
	require.True(t, (<-bombEnded).Canceled)
}

// TestAMemoryHogStopsAtTheAddressSpaceLimit: an action that takes memory
// without end gets a MemoryError at actions.LimitAddressSpace; its run fails
// with it.
func TestAMemoryHogStopsAtTheAddressSpaceLimit(t *testing.T) {
	t.Parallel()
	out, lines := runLimits(t, "memory_hog", nil)
	require.True(t, out.Failed(), "%v", lines)
	require.Contains(t, out.ErrorLine(time.Minute), "MemoryError")
}

// TestAnActionThatFillsTmpFillsOnlyItsOwn: an action writing into /tmp
// without end fills its private tmpfs of actions.LimitTmp and fails with
// "No space left on device"; the machine's /tmp holds nothing of it, and
// the action does not see the machine's /tmp.
func TestAnActionThatFillsTmpFillsOnlyItsOwn(t *testing.T) {
	t.Parallel()
	marker := fmt.Sprintf("styrmin-tmp-%d-%d", os.Getpid(), time.Now().UnixNano())
	require.NoError(t, os.WriteFile(filepath.Join("/tmp", marker), []byte("host"), 0o644))
	t.Cleanup(func() { os.Remove(filepath.Join("/tmp", marker)) })

	out, lines := runLimits(t, "tmp_filler", nil)
	require.True(t, out.Failed(), "%v", lines)
	require.Contains(t, out.ErrorLine(time.Minute), "No space left on device")
	_, err := os.Stat("/tmp/filler")
	require.ErrorIs(t, err, fs.ErrNotExist, "the action wrote into the machine's /tmp")

	out, lines = runLimits(t, "tmp_is_private", map[string]any{"marker": marker})
	require.False(t, out.Failed(), "%s %v", out.ErrorLine(time.Minute), lines)
	var got struct {
		Entries  []string `json:"entries"`
		HostFile bool     `json:"host_file"`
	}
	require.NoError(t, json.Unmarshal(out.Result, &got))
	require.False(t, got.HostFile, "the action sees the machine's /tmp")
	require.Len(t, got.Entries, 1, "the action's /tmp holds only its run's folder: %v", got.Entries)
}

// processesNamed returns the live processes named name (/proc/PID/comm).
func processesNamed(name string) []int {
	paths, _ := filepath.Glob("/proc/[0-9]*/comm")
	var pids []int
	for _, path := range paths {
		comm, err := os.ReadFile(path)
		if err != nil || strings.TrimSpace(string(comm)) != name {
			continue
		}
		pid, _ := strconv.Atoi(strings.Split(path, "/")[2])
		if !ended(pid) {
			pids = append(pids, pid)
		}
	}
	return pids
}
