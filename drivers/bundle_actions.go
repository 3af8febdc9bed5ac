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
	"strings"
	"time"
)

// functionLister is the Python program that lists top-level functions with ast.
//
//go:embed actions_functions.py
var functionLister string

// pythonTimeout bounds the run of functionLister.
const pythonTimeout = 30 * time.Second

// moduleFunctions is what functionLister reports about one module.
type moduleFunctions struct {
	Functions []string `json:"functions"`
	Error     string   `json:"error"`
}

// checkActions checks that each action's module:function is a top-level
// function of a module in the bundle. The error reports that Python could not run.
func checkActions(rep *report, d *Driver, files map[string][]byte) error {
	type target struct{ field, module, function, file string }
	var targets []target
	sources := map[string]string{}
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
		sources[file] = string(files[file])
		targets = append(targets, target{field, m[1], m[2], file})
	}
	if len(targets) == 0 {
		return nil
	}
	modules, err := listFunctions(sources)
	if err != nil {
		return err
	}
	for _, t := range targets {
		mod := modules[t.file]
		switch {
		case mod.Error != "":
			rep.add(t.field, "%s is not valid Python: %s", t.file, mod.Error)
		case !slices.Contains(mod.Functions, t.function):
			rep.add(t.field, "%s defines no top-level function %s%s", t.file, t.function, suggest(t.function, mod.Functions))
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

// listFunctions runs functionLister on the sources, keyed by file name.
func listFunctions(sources map[string]string) (map[string]moduleFunctions, error) {
	python, err := exec.LookPath("python3")
	if err != nil {
		return nil, errors.New("check action functions: python3 not found in PATH; install Python 3")
	}
	input, err := json.Marshal(sources)
	if err != nil {
		return nil, fmt.Errorf("check action functions: %w", err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), pythonTimeout)
	defer cancel()
	cmd := exec.CommandContext(ctx, python, "-I", "-c", functionLister)
	cmd.Stdin = bytes.NewReader(input)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		return nil, fmt.Errorf("check action functions with python3: %w: %s", err, strings.TrimSpace(stderr.String()))
	}
	var modules map[string]moduleFunctions
	if err := json.Unmarshal(out, &modules); err != nil {
		return nil, fmt.Errorf("check action functions: read python3 output: %w", err)
	}
	return modules, nil
}
