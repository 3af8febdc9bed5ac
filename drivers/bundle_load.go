package drivers

import (
	"crypto/sha256"
	"encoding/binary"
	"encoding/hex"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"slices"
	"strings"

	"helm.sh/helm/v3/pkg/chart"
)

// SpecFile is the name of the driver file at the root of a bundle.
const SpecFile = "driver.styrmin.yml"

// ReadmeFile is the name of the optional long description at the root of a bundle.
const ReadmeFile = "README.md"

// Limits on the content of a bundle.
const (
	maxBundleFiles = 2000
	maxBundleBytes = 50 << 20
)

// Bundle is a loaded driver folder: its spec and the files it ships.
type Bundle struct {
	// Path is the driver.styrmin.yml path as given, for messages.
	Path string
	// Driver is the parsed, valid spec.
	Driver *Driver
	// Icon is the bundled icon; nil when the driver has none or uses an https URL.
	Icon *Icon
	// Readme is README.md, "" when absent.
	Readme string
	// Chart is the bundled chart; nil for a remote chart reference.
	Chart *chart.Chart
	// Files holds every file of the bundle by slash path relative to its root.
	Files map[string][]byte
}

// Icon is an image file shipped in a bundle.
type Icon struct {
	// Name is the icon's slash path relative to the bundle root.
	Name string
	// ContentType is the media type detected from the content.
	ContentType string
	// Data is the file content.
	Data []byte
}

// LoadBundle loads and checks the bundle in folder dir of fsys. The error is
// Problems when the content breaks the contract.
func LoadBundle(fsys fs.FS, dir string) (*Bundle, error) {
	return loadBundle(fsys, dir, SpecFile, path.Join(dir, SpecFile))
}

// LoadPath loads and checks a bundle on disk, given as its folder or as its
// driver file (then the file's folder is the bundle).
func LoadPath(p string) (*Bundle, error) {
	info, err := os.Stat(p)
	if err != nil {
		return nil, fmt.Errorf("drivers: load %s: %w; give a bundle folder or its %s", p, err, SpecFile)
	}
	if info.IsDir() {
		return loadBundle(os.DirFS(p), ".", SpecFile, filepath.Join(p, SpecFile))
	}
	return loadBundle(os.DirFS(filepath.Dir(p)), ".", filepath.Base(p), p)
}

// loadBundle reads the files under dir, parses the spec named specName and
// checks the icon, chart, actions and values template. display names the spec in problems.
func loadBundle(fsys fs.FS, dir, specName, display string) (*Bundle, error) {
	files, links, err := readFiles(fsys, dir)
	if err != nil {
		return nil, fmt.Errorf("drivers: load %s: %w", display, err)
	}
	data, ok := files[specName]
	if !ok {
		return nil, fmt.Errorf("drivers: load %s: file not found; a bundle is a folder holding %s", display, SpecFile)
	}
	d, rep := parse(display, data)
	for _, link := range links {
		rep.at(position{1, 1}, "", "%s is a symbolic link, which a bundle cannot hold; copy the file into the bundle instead", link)
	}
	b := &Bundle{Path: display, Driver: d, Readme: string(files[ReadmeFile]), Files: files}
	b.Icon = loadIcon(rep, d, files)
	b.Chart = loadChart(rep, d, fsys, dir, files)
	if err := checkActions(rep, d, files); err != nil {
		return nil, fmt.Errorf("drivers: load %s: %w", display, err)
	}
	if ps := rep.result(); ps != nil {
		return nil, ps
	}
	return b, nil
}

// skippedNames are files and folders that are never part of a bundle.
var skippedNames = []string{".git", "__pycache__", ".DS_Store"}

// readFiles reads every regular file under dir, keyed by slash path relative
// to dir, and lists the symbolic links it finds; other special files are skipped.
func readFiles(fsys fs.FS, dir string) (map[string][]byte, []string, error) {
	files := map[string][]byte{}
	var links []string
	total := 0
	err := fs.WalkDir(fsys, dir, func(p string, e fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if slices.Contains(skippedNames, e.Name()) && p != dir {
			if e.IsDir() {
				return fs.SkipDir
			}
			return nil
		}
		if e.IsDir() {
			return nil
		}
		rel := strings.TrimPrefix(strings.TrimPrefix(p, dir), "/")
		if dir == "." {
			rel = p
		}
		if e.Type()&fs.ModeSymlink != 0 {
			links = append(links, rel)
			return nil
		}
		if !e.Type().IsRegular() {
			return nil
		}
		data, err := fs.ReadFile(fsys, p)
		if err != nil {
			return err
		}
		total += len(data)
		if len(files) >= maxBundleFiles || total > maxBundleBytes {
			return fmt.Errorf("bundle holds more than %d files or %d MiB; keep only what the driver needs", maxBundleFiles, maxBundleBytes>>20)
		}
		files[rel] = data
		return nil
	})
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil, fmt.Errorf("folder not found: %w", err)
	}
	return files, links, err
}

// Digest is the hex SHA-256 of the bundle's files (paths and contents, in path
// order): bundles with the same content have the same digest.
func (b *Bundle) Digest() string {
	names := make([]string, 0, len(b.Files))
	for name := range b.Files {
		names = append(names, name)
	}
	slices.Sort(names)
	h := sha256.New()
	var size [8]byte
	for _, name := range names {
		data := b.Files[name]
		binary.BigEndian.PutUint64(size[:], uint64(len(name)))
		h.Write(size[:])
		h.Write([]byte(name))
		binary.BigEndian.PutUint64(size[:], uint64(len(data)))
		h.Write(size[:])
		h.Write(data)
	}
	return hex.EncodeToString(h.Sum(nil))
}

// bundlePath turns a bundle-relative reference such as ./chart into a Files key.
func bundlePath(ref string) string {
	return path.Clean(strings.TrimPrefix(ref, "./"))
}
