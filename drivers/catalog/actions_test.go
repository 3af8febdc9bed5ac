package catalog_test

import (
	"encoding/json"
	"flag"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

var update = flag.Bool("update", false, "rewrite the golden files under testdata/actions")

// actionRun is what testdata/run_action.py reports.
type actionRun struct {
	Error string           `json:"error"`
	Calls []map[string]any `json:"calls"`
}

// runAction runs bundle's module:function with kwargs against the fake styrmin
// SDK in testdata/fake, as release "demo", and returns what it recorded.
func runAction(t *testing.T, bundle, function string, kwargs map[string]any, env ...string) ([]byte, actionRun) {
	t.Helper()
	args, err := json.Marshal(kwargs)
	require.NoError(t, err)
	cmd := exec.Command("python3", filepath.Join("testdata", "run_action.py"), bundle, function, string(args))
	cmd.Env = append(os.Environ(), "PYTHONPATH="+filepath.Join("testdata", "fake"), "PYTHONDONTWRITEBYTECODE=1", "STYRMIN_RELEASE=demo")
	cmd.Env = append(cmd.Env, env...)
	out, err := cmd.Output()
	require.NoError(t, err, "run %s %s", bundle, function)
	var run actionRun
	require.NoError(t, json.Unmarshal(out, &run), string(out))
	return out, run
}

func TestActionsAskForWhatTheyPromise(t *testing.T) {
	t.Parallel()
	tests := []struct {
		bundle, function string
		kwargs           map[string]any
	}{
		{"hello-web", "actions:smoke_test", nil},
		{"hello-web", "actions:fetch_page", map[string]any{"path": "/healthz"}},
		{"hello-web", "actions:restart", nil},
		{"postgresql", "actions:wait_ready", nil},
		{"postgresql", "actions:backup", map[string]any{"label": "pre-upgrade", "database": "app", "username": "postgres", "password": testPassword}},
		{"postgresql", "actions:vacuum", map[string]any{"database": "shop", "table": "sales.orders", "full": true, "analyze": true, "username": "postgres", "password": testPassword}},
		{"postgresql", "actions:vacuum", map[string]any{"database": "app", "table": "", "full": false, "analyze": false, "username": "postgres", "password": testPassword}},
		{"postgresql", "actions:restart", nil},
		{"redis", "actions:check_servers", nil},
		{"redis", "actions:flush", map[string]any{"database": 3, "all_databases": false, "confirm": "FLUSH", "password": testPassword}},
		{"redis", "actions:flush", map[string]any{"database": 0, "all_databases": true, "confirm": "FLUSH", "password": testPassword}},
		{"redis", "actions:pause_replicas", nil},
		{"redis", "actions:resume_replicas", nil},
	}
	for i, tt := range tests {
		name := strings.ReplaceAll(tt.bundle+"-"+strings.TrimPrefix(tt.function, "actions:"), "_", "-")
		if i > 0 && tests[i-1].function == tt.function {
			name += "-2"
		}
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			out, run := runAction(t, tt.bundle, tt.function, tt.kwargs)
			require.Empty(t, run.Error)
			require.NotEmpty(t, run.Calls)
			for _, call := range run.Calls {
				if line, ok := call["log"].(string); ok {
					require.NotContains(t, line, testPassword, "the password is never logged")
				}
				job, ok := call["execute_commands"].(map[string]any)
				if !ok {
					continue
				}
				for _, c := range job["commands"].([]any) {
					script := c.(string)
					require.NotContains(t, script, testPassword, "the password is never on a command line")
					syntax, err := exec.Command("sh", "-n", "-c", script).CombinedOutput()
					require.NoError(t, err, "shell syntax of %q: %s", script, syntax)
				}
			}
			golden := filepath.Join("testdata", "actions", name+".json")
			if *update {
				require.NoError(t, os.MkdirAll(filepath.Dir(golden), 0o755))
				require.NoError(t, os.WriteFile(golden, out, 0o644))
			}
			want, err := os.ReadFile(golden)
			require.NoError(t, err, "run go test -update to create the golden file")
			require.JSONEq(t, string(want), string(out))
		})
	}
}

func TestActionsRefuseBadInput(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name, bundle, function string
		kwargs                 map[string]any
		env                    []string
		wantErr                string
	}{
		{"path outside the site", "hello-web", "actions:fetch_page", map[string]any{"path": "http://evil/"}, nil, "must start with /"},
		{"backup without password", "postgresql", "actions:backup", map[string]any{"password": ""}, nil, "password is required"},
		{"backup label with a quote", "postgresql", "actions:backup", map[string]any{"label": "x'; DROP", "password": "p"}, nil, "backup label"},
		{"vacuum of a quoted table", "postgresql", "actions:vacuum", map[string]any{"table": `a"; DROP TABLE b`, "password": "p"}, nil, "table"},
		{"flush without confirmation", "redis", "actions:flush", map[string]any{"confirm": "yes", "password": "p"}, nil, "type FLUSH"},
		{"flush of database 16", "redis", "actions:flush", map[string]any{"database": 16, "confirm": "FLUSH", "password": "p"}, nil, "between 0 and 15"},
		{"outside Styrmin", "redis", "actions:check_servers", nil, []string{"STYRMIN_RELEASE="}, "STYRMIN_RELEASE is not set"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			_, run := runAction(t, tt.bundle, tt.function, tt.kwargs, tt.env...)
			require.Contains(t, run.Error, tt.wantErr)
			for _, call := range run.Calls {
				require.NotContains(t, call, "execute_commands", "nothing runs after bad input")
			}
		})
	}
}
