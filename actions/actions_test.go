package actions_test

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/styrmin/styrmin/actions"
	"github.com/styrmin/styrmin/drivers"
	"github.com/styrmin/styrmin/sdk"
)

// runModule runs function fn of a bundle whose actions.py is module, with
// the real styrmin package, and returns the outcome and the log lines.
func runModule(t *testing.T, ctx context.Context, module, fn, timeout string, prompts map[string]any) (actions.Outcome, []actions.Line) {
	t.Helper()
	// Found apart from ctx, which a test may cancel while the action runs.
	python, err := actions.FindPython(context.Background())
	require.NoError(t, err)
	dir := t.TempDir()
	require.NoError(t, sdk.Install(dir))
	var lines []actions.Line
	out, err := actions.Run(ctx, actions.Spec{
		Python: python, SDK: dir, Files: map[string][]byte{"actions.py": []byte(module)},
		Action:  drivers.Action{Name: "test", Function: "actions:" + fn, Timeout: timeout},
		Prompts: prompts,
		Env:     actions.Env{APIURL: "http://127.0.0.1:1", Token: "sta_test", Deployment: "web", Namespace: "web", Release: "web", StepID: 7},
	}, func(l actions.Line) { lines = append(lines, l) })
	require.NoError(t, err)
	return out, lines
}

const module = `
import logging, os, sys, time
log = logging.getLogger("t")

def ok(greeting):
    print("hello", greeting)
    log.warning("careful")
    print("to stderr", file=sys.stderr)
    return {"done": True}

def crash():
    log.info("before")
    raise ValueError("bad label")

def error_then_crash():
    log.error("the first error")
    log.error("the second error")
    raise RuntimeError("boom")

def exception_logged():
    try:
        raise KeyError("disk")
    except KeyError:
        log.exception("backup failed")
    log.error("the second error")
    raise RuntimeError("boom")

def long_error():
    log.info("before")
    log.error("é" * 20000)
    raise RuntimeError("boom")

def critical():
    log.critical("the database is gone")
    raise RuntimeError("boom")

def env():
    keys = sorted(k for k in os.environ if k.startswith("STYRMIN_") or k in ("HOME", "DATABASE_URL"))
    print(",".join(keys))

def slow():
    print("sleeping")
    time.sleep(60)

def chatty():
    for i in range(6000):
        print("line", i)

def leaves_a_child(marker="", lines=0):
    import subprocess
    # inherits standard output and error; the marker finds it from outside
    child = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(300)", marker])
    print("started", child.pid)
    for i in range(lines):
        print("line", i)
    return child.pid

def both_streams():
    import threading
    def err():
        for i in range(300):
            os.write(2, b"err %d\n" % i)
    t = threading.Thread(target=err)
    t.start()
    for i in range(300):
        os.write(1, b"out %d\n" % i)
    t.join()
`

func TestAnActionsLinesReachTheSinkWithTheirLevels(t *testing.T) {
	t.Parallel()
	out, lines := runModule(t, context.Background(), module, "ok", "", map[string]any{"greeting": "world"})
	require.False(t, out.Failed())
	require.JSONEq(t, `{"done": true}`, string(out.Result))
	require.Contains(t, lines, actions.Line{Level: "INFO", Message: "hello world"})
	require.Contains(t, lines, actions.Line{Level: "WARNING", Message: "careful"})
	require.Contains(t, lines, actions.Line{Level: "WARNING", Message: "to stderr"})
}

func TestACrashsErrorIsTheFirstErrorLineElseTheExceptionsLastLine(t *testing.T) {
	t.Parallel()
	out, lines := runModule(t, context.Background(), module, "crash", "", nil)
	require.True(t, out.Failed())
	require.Equal(t, 1, out.ExitCode)
	require.Equal(t, "ValueError: bad label", out.ErrorLine(time.Minute))
	require.Contains(t, lines, actions.Line{Level: "ERROR", Message: "ValueError: bad label"}, "the traceback is in the log")

	out, _ = runModule(t, context.Background(), module, "error_then_crash", "", nil)
	require.Equal(t, "the first error", out.ErrorLine(time.Minute))
}

// TestTheCrashLineIsTheFirstLineOfTheFirstErrorRecord: a logging.exception
// record gives its message, not its traceback; a CRITICAL record counts; a
// record longer than a protocol line still counts, its message cut.
func TestTheCrashLineIsTheFirstLineOfTheFirstErrorRecord(t *testing.T) {
	t.Parallel()
	out, lines := runModule(t, context.Background(), module, "exception_logged", "", nil)
	require.Equal(t, "backup failed", out.ErrorLine(time.Minute))
	require.True(t, strings.HasPrefix(lines[0].Message, "backup failed\nTraceback"), "the log keeps the whole record: %q", lines[0].Message)

	out, _ = runModule(t, context.Background(), module, "critical", "", nil)
	require.Equal(t, "the database is gone", out.ErrorLine(time.Minute))

	out, lines = runModule(t, context.Background(), module, "long_error", "", nil)
	line := out.ErrorLine(time.Minute)
	require.True(t, strings.HasPrefix(line, strings.Repeat("é", 100)), "%.40q", line)
	require.True(t, strings.HasSuffix(line, " …(line cut)"), "%q", line[len(line)-40:])
	require.Equal(t, "ERROR", lines[1].Level)
	require.Equal(t, line, lines[1].Message)
}

func TestAnActionSeesOnlyItsOwnVariables(t *testing.T) {
	t.Setenv("STYRMIN_DATABASE_URL", "postgres://server-secret")
	t.Setenv("DATABASE_URL", "postgres://server-secret")
	_, lines := runModule(t, context.Background(), module, "env", "", nil)
	require.Equal(t, "HOME,STYRMIN_ACTION,STYRMIN_ACTION_FUNCTION,STYRMIN_ACTION_TOKEN,STYRMIN_API_URL,STYRMIN_DEPLOYMENT,STYRMIN_HOOK_STEP,STYRMIN_NAMESPACE,STYRMIN_RELEASE", lines[0].Message)
}

func TestAnActionIsStoppedAtItsTimeoutAndWhenCancelled(t *testing.T) {
	t.Parallel()
	out, _ := runModule(t, context.Background(), module, "slow", "1s", nil)
	require.True(t, out.TimedOut)
	require.Equal(t, "the action did not finish within its timeout of 1s and was stopped", out.ErrorLine(time.Second))

	ctx, cancel := context.WithCancel(context.Background())
	go func() { time.Sleep(time.Second); cancel() }()
	out, _ = runModule(t, ctx, module, "slow", "1m", nil)
	require.True(t, out.Canceled)
	require.Equal(t, "the action was cancelled", out.ErrorLine(time.Minute))
}

func TestAnActionsLogIsBounded(t *testing.T) {
	t.Parallel()
	out, lines := runModule(t, context.Background(), module, "chatty", "", nil)
	require.False(t, out.Failed())
	require.Len(t, lines, actions.MaxLines+1)
	last := lines[len(lines)-1]
	require.Equal(t, "WARNING", last.Level)
	require.True(t, strings.HasPrefix(last.Message, "… 1000 more log lines were not kept"), last.Message)
}

// TestTheSinkSeesOneLineAtATime runs an action writing to standard output and
// standard error at once: the sink is never called by both readers at the same
// time (a step's log numbers its lines in the sink), and every line arrives.
func TestTheSinkSeesOneLineAtATime(t *testing.T) {
	t.Parallel()
	python, err := actions.FindPython(context.Background())
	require.NoError(t, err)
	dir := t.TempDir()
	require.NoError(t, sdk.Install(dir))
	var inside, overlaps atomic.Int32
	seq := 0
	got := map[int]string{}
	out, err := actions.Run(context.Background(), actions.Spec{
		Python: python, SDK: dir, Files: map[string][]byte{"actions.py": []byte(module)},
		Action: drivers.Action{Name: "test", Function: "actions:both_streams"},
	}, func(l actions.Line) {
		if inside.Add(1) > 1 {
			overlaps.Add(1)
		}
		seq++
		n := seq
		time.Sleep(100 * time.Microsecond) // as long as an insert takes, at least
		got[n] = l.Message
		inside.Add(-1)
	})
	require.NoError(t, err)
	require.False(t, out.Failed())
	require.Zero(t, overlaps.Load(), "the sink was called by both readers at once")
	require.Len(t, got, 600, "each line has its own number")
	want := map[string]bool{}
	for _, m := range got {
		want[m] = true
	}
	for i := range 300 {
		require.True(t, want[fmt.Sprintf("out %d", i)], "out %d", i)
		require.True(t, want[fmt.Sprintf("err %d", i)], "err %d", i)
	}
}

// TestAnActionEndsWhenItsFunctionReturnsThoughAChildHoldsItsOutput runs an
// action that leaves a process running with its standard output: the run ends
// when the action does, not at its timeout, with its lines and result, and the
// process it left is killed.
func TestAnActionEndsWhenItsFunctionReturnsThoughAChildHoldsItsOutput(t *testing.T) {
	t.Parallel()
	marker := fmt.Sprintf("styrmin-child-%d-%d", os.Getpid(), time.Now().UnixNano())
	out, lines := runModule(t, context.Background(), module, "leaves_a_child", "3m", map[string]any{"marker": marker})
	require.False(t, out.TimedOut, "the run waited for the child until the action's timeout")
	require.False(t, out.Failed(), out.ErrorLine(3*time.Minute))
	var pid int
	require.NoError(t, json.Unmarshal(out.Result, &pid))
	require.Contains(t, lines, actions.Line{Level: "INFO", Message: fmt.Sprintf("started %d", pid)})
	waitGone(t, marker) // SIGKILL was sent: the kernel ends it at once
}

// ended reports whether process pid has ended (is gone or a zombie).
func ended(pid int) bool {
	stat, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		return true
	}
	fields := strings.Fields(string(stat[bytes.LastIndexByte(stat, ')')+1:]))
	return len(fields) == 0 || fields[0] == "Z" || fields[0] == "X"
}

// TestASlowSinkGetsEveryLineOfAnActionThatLeftAChild: the output an action
// wrote before it ended is read at once, however slow the sink (a database
// insert per line), so none of it is lost when reading stops though a process
// it left holds its standard output.
func TestASlowSinkGetsEveryLineOfAnActionThatLeftAChild(t *testing.T) {
	t.Parallel()
	python, err := actions.FindPython(context.Background())
	require.NoError(t, err)
	dir := t.TempDir()
	require.NoError(t, sdk.Install(dir))
	var lines []actions.Line
	out, err := actions.Run(context.Background(), actions.Spec{
		Python: python, SDK: dir, Files: map[string][]byte{"actions.py": []byte(module)},
		Action:  drivers.Action{Name: "test", Function: "actions:leaves_a_child", Timeout: "3m"},
		Prompts: map[string]any{"lines": 3000},
	}, func(l actions.Line) {
		time.Sleep(time.Millisecond) // 3 s in all, longer than reading goes on after the end
		lines = append(lines, l)
	})
	require.NoError(t, err)
	require.False(t, out.Failed(), out.ErrorLine(3*time.Minute))
	require.NotEmpty(t, out.Result)
	require.Len(t, lines, 3001)
	require.Equal(t, actions.Line{Level: "INFO", Message: "line 2999"}, lines[3000])
}
