package bundled_test

import (
	"encoding/json"
	"flag"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/styrmin/styrmin/drivers"
	"github.com/styrmin/styrmin/drivers/bundled"
)

var update = flag.Bool("update", false, "rewrite the golden files under testdata/actions")

// actionRun is what testdata/run_action.py reports.
type actionRun struct {
	Error string           `json:"error"`
	Calls []map[string]any `json:"calls"`
}

// runAction runs bundle's module:function with kwargs and the styrmin package of
// sdk/python, its HTTP calls answered by testdata/run_action.py, as release
// "demo", and returns what it recorded.
func runAction(t *testing.T, bundle, function string, kwargs map[string]any, env ...string) ([]byte, actionRun) {
	t.Helper()
	args, err := json.Marshal(kwargs)
	require.NoError(t, err)
	sdk, err := filepath.Abs(filepath.Join("..", "..", "sdk", "python"))
	require.NoError(t, err)
	cmd := exec.Command("python3", filepath.Join("testdata", "run_action.py"), bundle, function, string(args))
	cmd.Env = append(os.Environ(), "PYTHONPATH="+sdk, "PYTHONDONTWRITEBYTECODE=1", "STYRMIN_RELEASE=demo")
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
		{"postgresql", "actions:backup", map[string]any{"label": "pre-upgrade", "database": "app"}},
		{"postgresql", "actions:vacuum", map[string]any{"database": "shop", "table": "sales.orders", "full": true, "analyze": true}},
		{"postgresql", "actions:vacuum", map[string]any{"database": "app", "table": "", "full": false, "analyze": false}},
		{"postgresql", "actions:restart", nil},
		{"redis", "actions:check_servers", nil},
		{"redis", "actions:flush", map[string]any{"database": 3, "all_databases": false, "confirm": "FLUSH"}},
		{"redis", "actions:flush", map[string]any{"database": 0, "all_databases": true, "confirm": "FLUSH"}},
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
			secrets := secretParameters(t, tt.bundle)
			for _, call := range run.Calls {
				job, ok := call["execute_commands"].(map[string]any)
				if !ok {
					continue
				}
				for _, c := range job["commands"].([]any) {
					script := c.(string)
					syntax, err := exec.Command("sh", "-n", "-c", script).CombinedOutput()
					require.NoError(t, err, "shell syntax of %q: %s", script, syntax)
				}
				for variable, param := range job["secret_env"].(map[string]any) {
					require.Contains(t, secrets, param, "secret_env[%s] names a secret parameter of the driver", variable)
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
		{"backup label with a quote", "postgresql", "actions:backup", map[string]any{"label": "x'; DROP"}, nil, "backup label"},
		{"vacuum of a quoted table", "postgresql", "actions:vacuum", map[string]any{"table": `a"; DROP TABLE b`}, nil, "table"},
		{"flush without confirmation", "redis", "actions:flush", map[string]any{"confirm": "yes"}, nil, "type FLUSH"},
		{"flush of database 16", "redis", "actions:flush", map[string]any{"database": 16, "confirm": "FLUSH"}, nil, "between 0 and 15"},
		{"a password prompt is gone", "postgresql", "actions:backup", map[string]any{"password": "p"}, nil, "unexpected keyword argument 'password'"},
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

// TestActionsTakeNoSecretPrompts: actions get secrets through execute_commands'
// secret_env, never as prompts, so that an action never holds a password.
func TestActionsTakeNoSecretPrompts(t *testing.T) {
	t.Parallel()
	for _, name := range bundled.Names() {
		b := loadBundle(t, name)
		for _, a := range b.Driver.Spec.Actions {
			for _, p := range a.Prompts {
				require.NotEqual(t, drivers.TypeSecret, p.Type, "%s: action %s: prompt %s", name, a.Name, p.Name)
			}
		}
	}
}

// secretParameters returns the names of the secret parameters of a bundled driver.
func secretParameters(t *testing.T, bundle string) []any {
	t.Helper()
	var names []any
	for _, p := range loadBundle(t, bundle).Driver.Spec.Parameters {
		if p.Type == drivers.TypeSecret {
			names = append(names, p.Name)
		}
	}
	return names
}

// TestHelloWebsSmokeTestChecksThePageItFetched runs the smoke test's shell
// script with a fake wget: each attempt fetches once and checks that page, a
// failed attempt says wget's error, and the script ends at the first good page.
func TestHelloWebsSmokeTestChecksThePageItFetched(t *testing.T) {
	t.Parallel()
	_, run := runAction(t, "hello-web", "actions:smoke_test", nil)
	require.Empty(t, run.Error)
	var script string
	for _, call := range run.Calls {
		if job, ok := call["execute_commands"].(map[string]any); ok {
			script = job["commands"].([]any)[0].(string)
		}
	}
	require.NotEmpty(t, script, "the smoke test runs a Job")

	// pages are what the fake wget serves at each call; "" is a connection refused.
	smoke := func(t *testing.T, pages ...string) (calls int, out string, err error) {
		bin, served := t.TempDir(), t.TempDir()
		for i, page := range pages {
			require.NoError(t, os.WriteFile(filepath.Join(served, strconv.Itoa(i+1)), []byte(page), 0o644))
		}
		fakeWget := `#!/bin/sh
n=$(($(cat "$SERVED/calls" 2>/dev/null || echo 0) + 1)); echo $n > "$SERVED/calls"
while [ $# -gt 1 ]; do [ "$1" = -O ] && out=$2; shift; done
if [ ! -s "$SERVED/$n" ]; then echo "wget: can't connect to remote host: Connection refused" >&2; exit 1; fi
cp "$SERVED/$n" "$out"
`
		require.NoError(t, os.WriteFile(filepath.Join(bin, "wget"), []byte(fakeWget), 0o755))
		require.NoError(t, os.WriteFile(filepath.Join(bin, "sleep"), []byte("#!/bin/sh\n"), 0o755))
		cmd := exec.Command("sh", "-c", script)
		cmd.Env = append(os.Environ(), "PATH="+bin+":"+os.Getenv("PATH"), "SERVED="+served)
		output, err := cmd.CombinedOutput()
		count, readErr := os.ReadFile(filepath.Join(served, "calls"))
		require.NoError(t, readErr)
		calls, convErr := strconv.Atoi(strings.TrimSpace(string(count)))
		require.NoError(t, convErr)
		return calls, string(output), err
	}
	page := "<html><title>Hello</title><p>deployed with Styrmin</p></html>"

	t.Run("a site that answers on the third attempt", func(t *testing.T) {
		calls, out, err := smoke(t, "", "<html>default nginx page</html>", page, page)
		require.NoError(t, err, out)
		require.Equal(t, 3, calls, "the page that passed is not fetched again")
		require.Contains(t, out, "attempt 1: http://demo-hello-web:80/ not reachable yet: wget: can't connect to remote host: Connection refused")
		require.Contains(t, out, "attempt 2: http://demo-hello-web:80/ answered, but not with the generated page")
		require.Contains(t, out, "bytes on attempt 3")
	})
	t.Run("a site that never serves the generated page", func(t *testing.T) {
		calls, out, err := smoke(t)
		require.Error(t, err)
		require.Equal(t, 24, calls)
		require.Contains(t, out, "http://demo-hello-web:80/ did not serve the generated page in 24 attempts")
	})
}
