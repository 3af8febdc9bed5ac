package drivers

import (
	"context"
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
	"unicode/utf8"

	"helm.sh/helm/v3/pkg/chart"
)

// SpecFile is the name of the driver file at the root of a bundle.
const SpecFile = "driver.styrmin.yml"

// ReadmeFile is the name of the optional long description at the root of a bundle.
const ReadmeFile = "README.md"

// Limits of a bundle, wherever it comes from (a folder, an uploaded archive,
// the catalogue): an archive within them unpacks to a bundle the loader reads.
const (
	// MaxBundleFiles is the largest number of files in a bundle, and of
	// entries (files and folders) in a bundle archive.
	MaxBundleFiles = 2000
	// MaxBundleFileSize is the largest size of one file of a bundle, in bytes.
	MaxBundleFileSize = 8 << 20
	// MaxBundleSize is the largest sum of the sizes of a bundle's files, in bytes.
	MaxBundleSize = 16 << 20
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
// Problems when the content breaks the contract or the bundle limits.
func LoadBundle(ctx context.Context, fsys fs.FS, dir string) (*Bundle, error) {
	return loadBundle(ctx, fsys, dir, SpecFile, path.Join(dir, SpecFile))
}

// LoadPath loads and checks a bundle on disk, given as its folder or as its
// driver file (then the file's folder is the bundle).
func LoadPath(ctx context.Context, p string) (*Bundle, error) {
	info, err := os.Stat(p)
	if err != nil {
		return nil, fmt.Errorf("drivers: load %s: %w; give a bundle folder or its %s", p, err, SpecFile)
	}
	if info.IsDir() {
		return loadBundle(ctx, os.DirFS(p), ".", SpecFile, filepath.Join(p, SpecFile))
	}
	return loadBundle(ctx, os.DirFS(filepath.Dir(p)), ".", filepath.Base(p), p)
}

// loadBundle reads the files under dir, parses the spec named specName and
// checks the icon, chart, actions and values template. display names the spec in problems.
func loadBundle(ctx context.Context, fsys fs.FS, dir, specName, display string) (*Bundle, error) {
	files, complaints, err := readFiles(fsys, dir, true)
	if err != nil {
		return nil, fmt.Errorf("drivers: load %s: %w", display, err)
	}
	if files == nil {
		rep := newReport(display)
		rep.at(position{1, 1}, "", "%s", complaints[0])
		return nil, rep.result()
	}
	data, ok := files[specName]
	if !ok {
		return nil, fmt.Errorf("drivers: load %s: file not found; a bundle is a folder holding %s", display, SpecFile)
	}
	d, rep := parse(ctx, display, data)
	for _, c := range complaints {
		rep.at(position{1, 1}, "", "%s", c)
	}
	b := assemble(rep, d, display, fsys, dir, files)
	if err := checkActions(ctx, rep, d, files); err != nil {
		return nil, fmt.Errorf("drivers: load %s: %w", display, err)
	}
	if err := ctx.Err(); err != nil {
		return nil, fmt.Errorf("drivers: load %s: %w", display, err)
	}
	if ps := rep.result(); ps != nil {
		return nil, ps
	}
	return b, nil
}

// ErrDigestMismatch means a stored bundle's files no longer have the digest
// recorded when it was imported.
var ErrDigestMismatch = errors.New("drivers: the bundle's files do not match its recorded digest")

// LoadTrusted loads a bundle that was checked when it was imported and has
// not changed since: it verifies that the files under dir of fsys have the
// digest recorded then (else ErrDigestMismatch) and decodes the spec, icon
// and chart, without checking the contract again: it runs neither Python nor
// the values template, so it is fast and needs no context.
func LoadTrusted(fsys fs.FS, dir, digest string) (*Bundle, error) {
	// All files: a bundle stored before TestsDir was left out may hold one.
	files, complaints, err := readFiles(fsys, dir, false)
	if err == nil && len(complaints) > 0 {
		err = errors.New(complaints[0])
	}
	if err != nil {
		return nil, fmt.Errorf("drivers: load stored bundle: %w", err)
	}
	if got := (&Bundle{Files: files}).Digest(); got != digest {
		return nil, fmt.Errorf("%w: want %s, got %s", ErrDigestMismatch, digest, got)
	}
	d, err := Decode(SpecFile, files[SpecFile])
	if err != nil {
		return nil, fmt.Errorf("drivers: load stored bundle: %w", err)
	}
	rep := newReport(SpecFile)
	b := assemble(rep, d, SpecFile, fsys, dir, files)
	if ps := rep.result(); ps != nil {
		return nil, fmt.Errorf("drivers: load stored bundle: %w", ps)
	}
	return b, nil
}

// assemble builds the bundle of a decoded spec, loading its icon and chart.
func assemble(rep *report, d *Driver, display string, fsys fs.FS, dir string, files map[string][]byte) *Bundle {
	b := &Bundle{Path: display, Driver: d, Readme: string(files[ReadmeFile]), Files: files}
	b.Icon = loadIcon(rep, d, files)
	b.Chart = loadChart(rep, d, fsys, dir, files)
	return b
}

// skippedNames are files and folders that are never part of a bundle.
var skippedNames = []string{".git", "__pycache__", ".DS_Store"}

// TestsDir is the folder at a driver folder's root that holds its author's
// Python tests (styrmin driver test). It is never part of the bundle: tests
// run on the author's machine, not in Styrmin, and editing them changes no
// driver version.
const TestsDir = "tests"

// ReadTests reads the tests folder of the driver folder p, keyed by slash
// path relative to p (tests/...), within the bundle limits; none when there
// is no such folder.
func ReadTests(p string) (map[string][]byte, error) {
	files, complaints, err := readFiles(os.DirFS(p), TestsDir, false)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return map[string][]byte{}, nil
	case err != nil:
		return nil, fmt.Errorf("drivers: read %s: %w", filepath.Join(p, TestsDir), err)
	case len(complaints) > 0:
		return nil, fmt.Errorf("drivers: read %s: %s", filepath.Join(p, TestsDir), complaints[0])
	}
	out := make(map[string][]byte, len(files))
	for name, data := range files {
		out[path.Join(TestsDir, name)] = data
	}
	return out, nil
}

// readFiles reads every regular file under dir (but its TestsDir when
// skipTests), keyed by slash path relative to dir, with complaints about what a bundle cannot hold (symbolic links,
// names that are not UTF-8); other special files are skipped. A bundle past
// the limits gives nil files and the one complaint that says so.
func readFiles(fsys fs.FS, dir string, skipTests bool) (map[string][]byte, []string, error) {
	files := map[string][]byte{}
	var complaints []string
	total := 0
	err := fs.WalkDir(fsys, dir, func(p string, e fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if (slices.Contains(skippedNames, e.Name()) || skipTests && p == path.Join(dir, TestsDir)) && p != dir {
			if e.IsDir() {
				return fs.SkipDir
			}
			return nil
		}
		rel := strings.TrimPrefix(strings.TrimPrefix(p, dir), "/")
		if dir == "." {
			rel = p
		}
		if !utf8.ValidString(rel) {
			complaints = append(complaints, fmt.Sprintf("%q is not a UTF-8 name, which a bundle cannot hold; rename it", rel))
			if e.IsDir() {
				return fs.SkipDir
			}
			return nil
		}
		if e.IsDir() {
			return nil
		}
		if e.Type()&fs.ModeSymlink != 0 {
			complaints = append(complaints, rel+" is a symbolic link, which a bundle cannot hold; copy the file into the bundle instead")
			return nil
		}
		if !e.Type().IsRegular() {
			return nil
		}
		info, err := e.Info()
		if err != nil {
			return err
		}
		if msg := BundleOverLimit(len(files)+1, info.Size(), int64(total)+info.Size()); msg != "" {
			complaints = []string{rel + ": " + msg}
			return errOverLimit
		}
		data, err := fs.ReadFile(fsys, p)
		if err != nil {
			return err
		}
		if msg := BundleOverLimit(len(files)+1, int64(len(data)), int64(total+len(data))); msg != "" {
			complaints = []string{rel + ": " + msg}
			return errOverLimit
		}
		total += len(data)
		files[rel] = data
		return nil
	})
	switch {
	case errors.Is(err, errOverLimit):
		return nil, complaints, nil
	case errors.Is(err, fs.ErrNotExist):
		return nil, nil, fmt.Errorf("folder not found: %w", err)
	}
	return files, complaints, err
}

// errOverLimit stops readFiles at the first file past the bundle limits.
var errOverLimit = errors.New("bundle past its limits")

// BundleOverLimit says which bundle limit a bundle of files files, whose latest is
// size bytes, adding up to total bytes, passes; "" when it passes none.
// Archives and folders share it, so both refuse the same bundles.
func BundleOverLimit(files int, size, total int64) string {
	switch {
	case files > MaxBundleFiles:
		return fmt.Sprintf("the bundle holds more than %d files; keep only what the driver needs", MaxBundleFiles)
	case size > MaxBundleFileSize:
		return fmt.Sprintf("the file is larger than %d MiB; a bundle file may be at most that", MaxBundleFileSize>>20)
	case total > MaxBundleSize:
		return fmt.Sprintf("the bundle's files add up to more than %d MiB; keep only what the driver needs", MaxBundleSize>>20)
	}
	return ""
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
