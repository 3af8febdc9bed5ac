// Package sdk ships the styrmin Python package (python/styrmin), which driver
// actions import, inside the styrmin binary.
package sdk

import (
	"bytes"
	"context"
	"embed"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"os/exec"
	"path"
	"path/filepath"
	"time"
)

// files holds the package's modules; its tests and packaging files stay out.
//
//go:embed python/styrmin/*.py
var files embed.FS

// packageDir is the folder of the package inside files.
const packageDir = "python/styrmin"

// referenceTimeout bounds the Python run that writes the primitives' reference.
const referenceTimeout = 30 * time.Second

// Install writes the styrmin package into dir (dir/styrmin/*.py), so that dir
// can go on PYTHONPATH. dir must exist.
func Install(dir string) error {
	entries, err := fs.ReadDir(files, packageDir)
	if err != nil {
		return fmt.Errorf("sdk: install: %w", err)
	}
	if err := os.Mkdir(filepath.Join(dir, "styrmin"), 0o755); err != nil {
		return fmt.Errorf("sdk: install: %w", err)
	}
	for _, e := range entries {
		data, err := files.ReadFile(path.Join(packageDir, e.Name()))
		if err != nil {
			return fmt.Errorf("sdk: install: %w", err)
		}
		if err := os.WriteFile(filepath.Join(dir, "styrmin", e.Name()), data, 0o644); err != nil {
			return fmt.Errorf("sdk: install: %w", err)
		}
	}
	return nil
}

// Reference returns the "Action primitives" section of the Driver API
// reference, which styrmin._reference writes from the package's docstrings.
// It needs python3.
func Reference(ctx context.Context) ([]byte, error) {
	python, err := exec.LookPath("python3")
	if err != nil {
		return nil, errors.New("sdk: reference: python3 not found in PATH; install Python 3")
	}
	dir, err := os.MkdirTemp("", "styrmin-sdk-")
	if err != nil {
		return nil, fmt.Errorf("sdk: reference: %w", err)
	}
	defer os.RemoveAll(dir)
	if err := Install(dir); err != nil {
		return nil, err
	}
	ctx, cancel := context.WithTimeout(ctx, referenceTimeout)
	defer cancel()
	// -I: no user site or environment variables; -B: no .pyc files.
	cmd := exec.CommandContext(ctx, python, "-I", "-B", "-c",
		"import sys; sys.path.insert(0, sys.argv[1]); import styrmin._reference as r; r.main()", dir)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		return nil, fmt.Errorf("sdk: reference: python3 -m styrmin._reference: %w: %s", err, bytes.TrimSpace(stderr.Bytes()))
	}
	return out, nil
}
