package actions_test

import (
	"context"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/styrmin/styrmin/actions"
	"github.com/styrmin/styrmin/drivers"
	"github.com/styrmin/styrmin/sdk"
)

// The behaviour of an action run is the same in both runtimes (the process
// runtime here, the pod runtime on the local cluster's real node): each
// test of it runs once per runtime through eachRuntime.

// actionRun is one run of a test action: function fn of a bundle whose
// actions.py is module.
type actionRun struct {
	module, fn string
	// timeout is the action's timeout ("" for the default).
	timeout string
	prompts map[string]any
	// sink, when set, is called with each line as it arrives; the lines are
	// returned anyway.
	sink func(actions.Line)
}

// runtimeEnv runs test actions in one runtime.
type runtimeEnv interface {
	// run runs r and returns the outcome and the log lines; an error means
	// the action could not be run at all.
	run(ctx context.Context, t *testing.T, r actionRun) (actions.Outcome, []actions.Line, error)
	// startsWithin is a timeout long enough for an action to have started
	// when it is up, on a busy machine.
	startsWithin() time.Duration
}

// runtimes are the runtimes the shared tests run in, by name.
var runtimes = []struct {
	name  string
	setup func(t *testing.T) runtimeEnv
}{
	{actions.RuntimeProcess, func(t *testing.T) runtimeEnv { return newProcessEnv(t) }},
	{actions.RuntimePod, func(t *testing.T) runtimeEnv { return newPodEnv(t) }},
}

// eachRuntime runs test once in each runtime, as a subtest named after the
// runtime; the pod runtime's is skipped where the local cluster is (-short).
func eachRuntime(t *testing.T, test func(t *testing.T, env runtimeEnv)) {
	t.Helper()
	for _, rt := range runtimes {
		t.Run(rt.name, func(t *testing.T) { test(t, rt.setup(t)) })
	}
}

// mustRun runs r in env; the action must have run.
func mustRun(ctx context.Context, t *testing.T, env runtimeEnv, r actionRun) (actions.Outcome, []actions.Line) {
	t.Helper()
	out, lines, err := env.run(ctx, t, r)
	require.NoError(t, err)
	return out, lines
}

// bundleOf is the files of a test driver whose actions.py is module.
func bundleOf(module string) map[string][]byte {
	return map[string][]byte{"actions.py": []byte(module), "driver.styrmin.yml": []byte("kind: Driver\n")}
}

// testEnv is the environment every test action runs with; the pod runtime
// sets its own API URL, token and namespace.
var testEnv = actions.Env{APIURL: "http://127.0.0.1:1", Token: "sta_test", Deployment: "web", Namespace: "web", Release: "web", StepID: 7}

// processEnv is the process runtime with the real styrmin package.
type processEnv struct {
	python, sdk string
}

func newProcessEnv(t *testing.T) *processEnv {
	t.Helper()
	python, err := actions.FindPython(context.Background())
	require.NoError(t, err)
	dir := t.TempDir()
	require.NoError(t, sdk.Install(dir))
	return &processEnv{python: python, sdk: dir}
}

func (e *processEnv) startsWithin() time.Duration { return 5 * time.Second }

func (e *processEnv) run(ctx context.Context, t *testing.T, r actionRun) (actions.Outcome, []actions.Line, error) {
	t.Helper()
	var lines []actions.Line
	out, err := actions.Process{}.Run(ctx, actions.Spec{
		Python: e.python, SDK: e.sdk, Files: bundleOf(r.module),
		Action:  drivers.Action{Name: "test", Function: "actions:" + r.fn, Timeout: r.timeout},
		Prompts: r.prompts,
		Env:     testEnv,
	}, collect(&lines, r.sink))
	return out, lines, err
}

// collect is a sink that appends each line to lines, then passes it to sink
// when there is one.
func collect(lines *[]actions.Line, sink func(actions.Line)) func(actions.Line) {
	return func(l actions.Line) {
		*lines = append(*lines, l)
		if sink != nil {
			sink(l)
		}
	}
}
