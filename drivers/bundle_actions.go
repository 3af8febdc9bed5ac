package drivers

import (
	"bytes"
	"context"
	_ "embed"
	"encoding/json"
	"errors"
	"fmt"
	"os/exec"
	"slices"
	"strconv"
	"strings"
	"time"
)

// functionLister is the Python program that lists a module's top-level functions with ast.
//
//go:embed actions_functions.py
var functionLister string

// Limits of the Python check of one action module. A module that needs more
// is refused as a problem, so a bundle cannot exhaust the server.
const (
	// maxModuleSize is the largest action module checked, in bytes.
	maxModuleSize = 1 << 20
	// pythonMemory bounds the address space of the Python child, in bytes.
	pythonMemory = 256 << 20
	// pythonCPU bounds the CPU time of the Python child.
	pythonCPU = 10 * time.Second
	// pythonTimeout bounds the wall time of the Python child.
	pythonTimeout = 20 * time.Second
)

// moduleFunctions is what functionLister reports about one module.
type moduleFunctions struct {
	Functions []string `json:"functions"`
	// Error says why the module is not valid Python.
	Error string `json:"error"`
	// Unchecked says why the module could not be checked within the limits.
	Unchecked string `json:"unchecked"`
}

// checkActions checks that each action's module:function is a top-level
// function of a module in the bundle; every module that cannot be checked is a
// problem on the actions using it. The error reports that Python could not
// start or that ctx ended.
func checkActions(ctx context.Context, rep *report, d *Driver, files map[string][]byte) error {
	modules := map[string]moduleFunctions{}
	for i, a := range d.Spec.Actions {
		field := indexPath("spec.actions", i) + ".function"
		m := actionFunction.FindStringSubmatch(a.Function)
		if m == nil || rep.reported(field) {
			continue
		}
		file, ok := moduleFile(m[1], files)
		if !ok {
			base := strings.ReplaceAll(m[1], ".", "/")
			rep.add(field, "module %s not found in the bundle; add %s.py or %s/__init__.py", m[1], base, base)
			continue
		}
		mod, ok := modules[file]
		if !ok {
			var err error
			if mod, err = listFunctions(ctx, files[file]); err != nil {
				return fmt.Errorf("check %s: %w", file, err)
			}
			modules[file] = mod
		}
		switch {
		case mod.Error != "":
			rep.add(field, "%s is not valid Python: %s", file, mod.Error)
		case mod.Unchecked != "":
			rep.add(field, "%s cannot be checked: %s", file, mod.Unchecked)
		case !slices.Contains(mod.Functions, m[2]):
			rep.add(field, "%s defines no top-level function %s%s", file, m[2], suggest(m[2], mod.Functions))
		}
	}
	return nil
}

// moduleFile finds the file of a dotted module name in the bundle.
func moduleFile(module string, files map[string][]byte) (string, bool) {
	base := strings.ReplaceAll(module, ".", "/")
	for _, name := range []string{base + ".py", base + "/__init__.py"} {
		if _, ok := files[name]; ok {
			return name, true
		}
	}
	return "", false
}

// listFunctions runs functionLister on one module's source under the limits
// above. A source it cannot check comes back as a moduleFunctions.Unchecked;
// the error reports that python3 is missing or that ctx ended.
func listFunctions(ctx context.Context, source []byte) (moduleFunctions, error) {
	if len(source) > maxModuleSize {
		return moduleFunctions{Unchecked: fmt.Sprintf("it is %d bytes; an action module may be at most %d, so split it", len(source), maxModuleSize)}, nil
	}
	python, err := exec.LookPath("python3")
	if err != nil {
		return moduleFunctions{}, errors.New("python3 not found in PATH; install Python 3")
	}
	child, cancel := context.WithTimeout(ctx, pythonTimeout)
	defer cancel()
	cmd := exec.CommandContext(child, python, "-I", "-c", functionLister,
		strconv.Itoa(pythonMemory), strconv.Itoa(int(pythonCPU.Seconds())))
	cmd.Stdin = bytes.NewReader(source)
	cmd.WaitDelay = time.Second // a killed child's pipes are closed soon, even if something holds them
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if ctx.Err() != nil {
		return moduleFunctions{}, ctx.Err()
	}
	var mod moduleFunctions
	switch {
	case child.Err() != nil:
		return moduleFunctions{Unchecked: fmt.Sprintf("checking it took longer than %s; simplify it", pythonTimeout)}, nil
	case err != nil:
		return moduleFunctions{Unchecked: "checking it failed (" + childFailure(err, stderr.String()) + "); simplify it"}, nil
	case json.Unmarshal(out, &mod) != nil:
		return moduleFunctions{Unchecked: "checking it gave no result; simplify it"}, nil
	}
	return mod, nil
}

// childFailure says briefly why the Python child failed: its signal or exit
// status and the last line it wrote to stderr.
func childFailure(err error, stderr string) string {
	lines := strings.Split(strings.TrimSpace(stderr), "\n")
	last := lines[len(lines)-1]
	if len(last) > 200 {
		last = last[:200] + "…"
	}
	if last == "" {
		return err.Error()
	}
	return err.Error() + ": " + last
}
