// Package authoring is the driver author's loop, offline: a new driver
// folder made from a bundled driver (New), its chart rendered as an install
// would render it (Render), and its Python tests run against styrmin.testing's
// fake of the action primitives (Test).
package authoring

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"k8s.io/apimachinery/pkg/util/validation"

	"github.com/styrmin/styrmin"
	"github.com/styrmin/styrmin/drivers"
	"github.com/styrmin/styrmin/drivers/bundled"
)

// DefaultTemplate is the bundled driver a new driver starts from.
const DefaultTemplate = "hello-web"

// maxNameLength bounds a new driver's name: the template's chart names its
// objects <release>-<name> in 40 characters, which leaves a release name room.
const maxNameLength = 20

// New writes a driver folder named name into dir/name, made from the bundled
// driver from: every file copied with from's name replaced by name and its
// title by name's. It refuses a bad name, an unknown template and a folder
// that exists; the folder written loads as a valid bundle, or is removed.
func New(ctx context.Context, dir, name, from string) (string, error) {
	if err := checkName(name); err != nil {
		return "", err
	}
	if !slices.Contains(bundled.Names(), from) {
		return "", styrmin.Errorf(styrmin.EINVALID, "There is no bundled driver %q to start from; use one of %s.", from, strings.Join(bundled.Names(), ", "))
	}
	dest := filepath.Join(dir, name)
	if err := os.Mkdir(dest, 0o755); err != nil {
		if errors.Is(err, fs.ErrExist) {
			return "", styrmin.Errorf(styrmin.ECONFLICT, "%s exists already; choose another name or folder.", dest)
		}
		return "", fmt.Errorf("authoring: new %s: %w", name, err)
	}
	if err := copyRenamed(bundled.Bundles(), from, dest, name); err != nil {
		os.RemoveAll(dest)
		return "", fmt.Errorf("authoring: new %s: %w", name, err)
	}
	if _, err := drivers.LoadPath(ctx, dest); err != nil {
		os.RemoveAll(dest)
		return "", fmt.Errorf("authoring: new %s: the new driver does not load: %w", name, err)
	}
	return dest, nil
}

// checkName refuses a name that is not a DNS-1123 label or is too long.
func checkName(name string) error {
	if errs := validation.IsDNS1123Label(name); len(errs) > 0 {
		return styrmin.Errorf(styrmin.EINVALID, "%q is not a valid driver name: use lower-case letters, digits and '-', starting and ending with a letter or digit.", name)
	}
	if len(name) > maxNameLength {
		return styrmin.Errorf(styrmin.EINVALID, "%q is %d characters long; a driver name may have at most %d.", name, len(name), maxNameLength)
	}
	return nil
}

// copyRenamed copies the folder from of fsys to dest with from's name and
// title replaced by name's in every file.
func copyRenamed(fsys fs.FS, from, dest, name string) error {
	replacer := strings.NewReplacer(from, name, title(from), title(name))
	return fs.WalkDir(fsys, from, func(p string, e fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel := strings.TrimPrefix(strings.TrimPrefix(p, from), "/")
		target := filepath.Join(dest, filepath.FromSlash(rel))
		if e.IsDir() {
			if rel == "" {
				return nil
			}
			return os.Mkdir(target, 0o755)
		}
		data, err := fs.ReadFile(fsys, p)
		if err != nil {
			return err
		}
		return os.WriteFile(target, []byte(replacer.Replace(string(data))), 0o644)
	})
}

// title is a driver name as a title: "hello-web" is "Hello Web".
func title(name string) string {
	words := strings.Split(name, "-")
	for i, w := range words {
		if w != "" {
			words[i] = strings.ToUpper(w[:1]) + w[1:]
		}
	}
	return strings.Join(words, " ")
}
