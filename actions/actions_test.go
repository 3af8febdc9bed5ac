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
)

const module = `
import logging, os, sys, time
log = logging.getLogger("t")

def ok(greeting):
    print("hello", greeting)
    log.warning("careful")
    print("to stderr", file=sys.stderr)
    os.write(2, b"straight to standard error\n")
    return {"done": True, "files": sorted(os.listdir("."))}

def crash():
    log.info("before")
    raise ValueError("bad label")

def error_then_crash():
    log.error("the first error\nits second line")
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

// TestAnActionsLinesReachTheSinkWithTheirLevels: print gives INFO, a
// record its level, sys.stderr WARNING; what the process writes to its
// standard error itself is INFO, as a pod's log cannot tell it apart.
func TestAnActionsLinesReachTheSinkWithTheirLevels(t *testing.T) {
	t.Parallel()
	eachRuntime(t, func(t *testing.T, env runtimeEnv) {
		t.Parallel()
		out, lines := mustRun(context.Background(), t, env, actionRun{module: module, fn: "ok", prompts: map[string]any{"greeting": "world"}})
		require.False(t, out.Failed(), "%+v %v", out, lines)
		require.Equal(t, 0, out.ExitCode)
		require.JSONEq(t, `{"done": true, "files": ["actions.py", "driver.styrmin.yml"]}`, string(out.Result), "it runs in its bundle")
		require.ElementsMatch(t, []actions.Line{
			{Level: "INFO", Message: "hello world"},
			{Level: "WARNING", Message: "careful"},
			{Level: "WARNING", Message: "to stderr"},
			{Level: "INFO", Message: "straight to standard error"},
		}, lines)
	})
}

func TestACrashsErrorIsTheFirstErrorLineElseTheExceptionsLastLine(t *testing.T) {
	t.Parallel()
	eachRuntime(t, func(t *testing.T, env runtimeEnv) {
		t.Parallel()
		out, lines := mustRun(context.Background(), t, env, actionRun{module: module, fn: "crash"})
		require.True(t, out.Failed())
		require.Equal(t, 1, out.ExitCode)
		require.Equal(t, "ValueError: bad label", out.Exception)
		require.Equal(t, "ValueError: bad label", out.ErrorLine(time.Minute))
		require.Contains(t, lines, actions.Line{Level: "INFO", Message: "before"})
		require.Contains(t, lines, actions.Line{Level: "ERROR", Message: "ValueError: bad label"}, "the traceback is in the log")

		out, _ = mustRun(context.Background(), t, env, actionRun{module: module, fn: "error_then_crash"})
		require.Equal(t, "the first error", out.ErrorLine(time.Minute))
	})
}

// TestTheCrashLineIsTheFirstLineOfTheFirstErrorRecord: a logging.exception
// record gives its message, not its traceback; a CRITICAL record counts.
func TestTheCrashLineIsTheFirstLineOfTheFirstErrorRecord(t *testing.T) {
	t.Parallel()
	eachRuntime(t, func(t *testing.T, env runtimeEnv) {
		t.Parallel()
		out, lines := mustRun(context.Background(), t, env, actionRun{module: module, fn: "exception_logged"})
		require.Equal(t, "backup failed", out.ErrorLine(time.Minute))
		require.True(t, strings.HasPrefix(lines[0].Message, "backup failed\nTraceback"), "the log keeps the whole record: %q", lines[0].Message)

		out, _ = mustRun(context.Background(), t, env, actionRun{module: module, fn: "critical"})
		require.Equal(t, "the database is gone", out.ErrorLine(time.Minute))
	})
}

// TestALongRecordKeepsItsLevelAndIsTheCrashLine: the runner cuts a record
// longer than a protocol line to fit one, and the runtime reads that line
// whole (the pod runtime's, after the kubelet's timestamp).
func TestALongRecordKeepsItsLevelAndIsTheCrashLine(t *testing.T) {
	t.Parallel()
	eachRuntime(t, func(t *testing.T, env runtimeEnv) {
		t.Parallel()
		out, lines := mustRun(context.Background(), t, env, actionRun{module: module, fn: "long_error"})
		line := out.ErrorLine(time.Minute)
		require.True(t, strings.HasPrefix(line, strings.Repeat("é", 100)), "%.40q", line)
		require.True(t, strings.HasSuffix(line, actions.LineCut), "%q", line[max(0, len(line)-40):])
		require.Equal(t, "ERROR", lines[1].Level)
		require.Equal(t, line, lines[1].Message)
	})
}

// TestAnActionSeesOnlyItsOwnVariables: none of the server's environment
// reaches the action (in a pod, trivially: it runs elsewhere).
func TestAnActionSeesOnlyItsOwnVariables(t *testing.T) {
	t.Setenv("STYRMIN_DATABASE_URL", "postgres://server-secret")
	t.Setenv("DATABASE_URL", "postgres://server-secret")
	eachRuntime(t, func(t *testing.T, env runtimeEnv) {
		_, lines := mustRun(context.Background(), t, env, actionRun{module: module, fn: "env"})
		require.Equal(t, "HOME,STYRMIN_ACTION,STYRMIN_ACTION_FUNCTION,STYRMIN_ACTION_TOKEN,STYRMIN_API_URL,STYRMIN_DEPLOYMENT,STYRMIN_HOOK_STEP,STYRMIN_NAMESPACE,STYRMIN_RELEASE", lines[0].Message)
	})
}

// TestAnActionIsStoppedAtItsTimeout: the action gets SIGTERM, says so, and
// the run reads as timed out.
func TestAnActionIsStoppedAtItsTimeout(t *testing.T) {
	t.Parallel()
	eachRuntime(t, func(t *testing.T, env runtimeEnv) {
		t.Parallel()
		timeout := env.startsWithin()
		out, lines := mustRun(context.Background(), t, env, actionRun{module: module, fn: "slow", timeout: timeout.String()})
		require.True(t, out.TimedOut, "%+v %v", out, lines)
		require.True(t, out.Failed())
		require.Equal(t, fmt.Sprintf("the action did not finish within its timeout of %s and was stopped", timeout), out.ErrorLine(timeout))
		require.Contains(t, lines, actions.Line{Level: "INFO", Message: "sleeping"})
		require.Contains(t, lines, actions.Line{Level: "WARNING", Message: "the action was stopped (SIGTERM)"})
	})
}

// TestAnActionIsStoppedWhenCancelled: the action gets SIGTERM, says so, and
// the run reads as cancelled. Its exit status is not compared: the pod
// runtime and the sandbox read the runner's 143 after SIGTERM as killed
// (-1), a process runtime without a sandbox reports 143 itself.
func TestAnActionIsStoppedWhenCancelled(t *testing.T) {
	t.Parallel()
	eachRuntime(t, func(t *testing.T, env runtimeEnv) {
		t.Parallel()
		ctx, cancel := context.WithCancel(context.Background())
		defer cancel()
		out, lines := mustRun(ctx, t, env, actionRun{module: module, fn: "slow", timeout: "10m", sink: func(l actions.Line) {
			if l.Message == "sleeping" { // the action runs: cancel it now
				cancel()
			}
		}})
		require.True(t, out.Canceled, "%+v %v", out, lines)
		require.Equal(t, "the action was cancelled", out.ErrorLine(time.Minute))
		require.Contains(t, lines, actions.Line{Level: "WARNING", Message: "the action was stopped (SIGTERM)"})
	})
}

func TestAnActionsLogIsBounded(t *testing.T) {
	t.Parallel()
	eachRuntime(t, func(t *testing.T, env runtimeEnv) {
		t.Parallel()
		out, lines := mustRun(context.Background(), t, env, actionRun{module: module, fn: "chatty"})
		require.False(t, out.Failed())
		require.Len(t, lines, actions.MaxLines+1)
		last := lines[len(lines)-1]
		require.Equal(t, "WARNING", last.Level)
		require.True(t, strings.HasPrefix(last.Message, "… 1000 more log lines were not kept"), last.Message)
	})
}

// TestTheSinkSeesOneLineAtATime runs an action writing to standard output and
// standard error at once: the sink is never called by two readers at the same
// time (a step's log numbers its lines in the sink), and every line arrives.
func TestTheSinkSeesOneLineAtATime(t *testing.T) {
	t.Parallel()
	eachRuntime(t, func(t *testing.T, env runtimeEnv) {
		t.Parallel()
		var inside, overlaps atomic.Int32
		seq := 0
		got := map[int]string{}
		out, _ := mustRun(context.Background(), t, env, actionRun{module: module, fn: "both_streams", sink: func(l actions.Line) {
			if inside.Add(1) > 1 {
				overlaps.Add(1)
			}
			seq++
			n := seq
			time.Sleep(100 * time.Microsecond) // as long as an insert takes, at least
			got[n] = l.Message
			inside.Add(-1)
		}})
		require.False(t, out.Failed())
		require.Zero(t, overlaps.Load(), "the sink was called by two readers at once")
		require.Len(t, got, 600, "each line has its own number")
		want := map[string]bool{}
		for _, m := range got {
			want[m] = true
		}
		for i := range 300 {
			require.True(t, want[fmt.Sprintf("out %d", i)], "out %d", i)
			require.True(t, want[fmt.Sprintf("err %d", i)], "err %d", i)
		}
	})
}

// TestAnActionEndsWhenItsFunctionReturnsThoughAChildHoldsItsOutput runs an
// action that leaves a process running with its standard output: the run ends
// when the action does, not at its timeout, with its lines and result, and the
// process it left is killed.
func TestAnActionEndsWhenItsFunctionReturnsThoughAChildHoldsItsOutput(t *testing.T) {
	t.Parallel()
	eachRuntime(t, func(t *testing.T, env runtimeEnv) {
		t.Parallel()
		marker := fmt.Sprintf("styrmin-child-%d-%d", os.Getpid(), time.Now().UnixNano())
		out, lines := mustRun(context.Background(), t, env, actionRun{module: module, fn: "leaves_a_child", timeout: "3m", prompts: map[string]any{"marker": marker}})
		require.False(t, out.TimedOut, "the run waited for the child until the action's timeout")
		require.False(t, out.Failed(), out.ErrorLine(3*time.Minute))
		var pid int
		require.NoError(t, json.Unmarshal(out.Result, &pid))
		require.Contains(t, lines, actions.Line{Level: "INFO", Message: fmt.Sprintf("started %d", pid)})
		waitGone(t, marker) // SIGKILL was sent: the kernel ends it at once
	})
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
	eachRuntime(t, func(t *testing.T, env runtimeEnv) {
		t.Parallel()
		out, lines := mustRun(context.Background(), t, env, actionRun{module: module, fn: "leaves_a_child", timeout: "3m", prompts: map[string]any{"lines": 3000},
			sink: func(actions.Line) {
				time.Sleep(time.Millisecond) // 3 s in all, longer than reading goes on after the end
			}})
		require.False(t, out.Failed(), out.ErrorLine(3*time.Minute))
		require.NotEmpty(t, out.Result)
		require.Len(t, lines, 3001)
		require.Equal(t, actions.Line{Level: "INFO", Message: "line 2999"}, lines[3000])
	})
}
