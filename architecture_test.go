package styrmin_test

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"regexp"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/stretchr/testify/require"
)

// The facts of docs/architecture.md that the import graph can check.

// module is the module path every package of this repository starts with.
const module = "github.com/styrmin/styrmin"

// listedPackage is what `go list -json` says of a package of the module.
type listedPackage struct {
	ImportPath string
	Imports    []string
	Deps       []string
}

// modulePackages lists every package of the module, by its path in the
// module ("" for the root), with its imports (direct and all).
func modulePackages(t *testing.T) map[string]listedPackage {
	t.Helper()
	pkgs, err := listModule()
	require.NoError(t, err)
	require.Contains(t, pkgs, "runner", "the listing holds the module's packages")
	return pkgs
}

// listModule is `go list -json ./...`, read once for every test.
var listModule = sync.OnceValues(func() (map[string]listedPackage, error) {
	out, err := exec.Command("go", "list", "-json=ImportPath,Imports,Deps", "./...").Output()
	var exit *exec.ExitError
	if errors.As(err, &exit) {
		return nil, fmt.Errorf("go list: %w: %s", err, exit.Stderr)
	}
	if err != nil {
		return nil, fmt.Errorf("go list: %w", err)
	}
	pkgs := map[string]listedPackage{}
	dec := json.NewDecoder(bytes.NewReader(out))
	for {
		var p listedPackage
		err := dec.Decode(&p)
		if errors.Is(err, io.EOF) {
			return pkgs, nil
		}
		if err != nil {
			return nil, fmt.Errorf("go list: %w", err)
		}
		pkgs[strings.TrimPrefix(strings.TrimPrefix(p.ImportPath, module), "/")] = p
	}
})

// importing lists, sorted, the packages of pkgs whose imports (direct, or
// all with deps) hold one that matches.
func importing(pkgs map[string]listedPackage, deps bool, matches func(string) bool) []string {
	var out []string
	for name, p := range pkgs {
		imports := p.Imports
		if deps {
			imports = p.Deps
		}
		if slices.ContainsFunc(imports, matches) {
			out = append(out, name)
		}
	}
	slices.Sort(out)
	return out
}

// isPackage matches path and the packages below it.
func isPackage(path string) func(string) bool {
	return func(imp string) bool { return imp == path || strings.HasPrefix(imp, path+"/") }
}

func TestOnlyTheTaskQueueItsWebhookDeliveriesAndTheMigrationsUseRiver(t *testing.T) {
	t.Parallel()
	users := importing(modulePackages(t), false, isPackage("github.com/riverqueue/river"))
	require.Subset(t, []string{"db", "executor", "webhooks"}, users,
		"River is the executor's: db applies its migrations, webhooks adds its delivery worker to the executor's client (docs/architecture.md)")
}

func TestNoAdapterReachesTheRunners(t *testing.T) {
	t.Parallel()
	pkgs := modulePackages(t)
	runner := isPackage(module + "/runner")
	var adapters []string
	for name := range pkgs {
		if strings.HasPrefix(name, "handlers/") && name != "handlers/handlerstest" {
			adapters = append(adapters, name)
		}
	}
	require.Subset(t, adapters, []string{"handlers/web", "handlers/api", "handlers/action", "handlers/httpx"})
	for _, name := range append(adapters, "handlers", "deployment", "views") {
		require.NotContains(t, pkgs[name].Deps, module+"/runner", "%s serves and queues; the worker side is not its to call", name)
	}
	var commands []string
	for name := range pkgs {
		if strings.HasPrefix(name, "cmd/") {
			commands = append(commands, name)
		}
	}
	require.NotEmpty(t, commands)
	for _, name := range commands {
		require.False(t, slices.ContainsFunc(pkgs[name].Imports, runner), "%s wires through app.New, never the runners themselves", name)
	}
}

func TestViewsImportNoDatabaseAndNoEcho(t *testing.T) {
	t.Parallel()
	deps := modulePackages(t)["views"].Deps
	require.NotEmpty(t, deps)
	for _, forbidden := range []string{module + "/db", "github.com/jackc/pgx/v5", "github.com/labstack/echo/v4", module + "/deployment"} {
		require.False(t, slices.ContainsFunc(deps, isPackage(forbidden)), "views depends on %s", forbidden)
	}
}

func TestWebhooksDoNotDependOnTheDeploymentService(t *testing.T) {
	t.Parallel()
	require.NotContains(t, modulePackages(t)["webhooks"].Deps, module+"/deployment",
		"webhooks get deployment's rules from app.New, and re-seal through secrets")
}

// documentedPackage is a package's cell in the table of docs/architecture.md.
var documentedPackage = regexp.MustCompile("(?m)^\\| `([^`]+)`[^|]*\\|")

func TestEveryPackageIsInTheArchitectureTable(t *testing.T) {
	t.Parallel()
	doc, err := os.ReadFile("docs/architecture.md")
	require.NoError(t, err)
	documented := map[string]bool{}
	for _, m := range documentedPackage.FindAllStringSubmatch(string(doc), -1) {
		documented[m[1]] = true
	}
	var missing []string
	for name := range modulePackages(t) {
		if name == "" {
			name = "styrmin"
		}
		if !documented[name] {
			missing = append(missing, name)
		}
	}
	slices.Sort(missing)
	require.Empty(t, missing, "docs/architecture.md's table has a row for every package of the module, its first cell the package's path in backticks")
}
