package catalog

import (
	"archive/tar"
	"bytes"
	"compress/gzip"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"maps"
	"path"
	"slices"
	"strings"
	"testing/fstest"
	"time"
	"unicode/utf8"

	"github.com/styrmin/styrmin"
	"github.com/styrmin/styrmin/drivers"
)

// Unpack reads a gzip-compressed tar archive into memory and returns its files
// and the bundle's root in it: "." when driver.styrmin.yml is at the top, or
// the one top-level folder that holds it. Only regular files and folders with
// UTF-8 names are accepted; absolute names, ".." and links are refused, and so
// is an archive past the bundle limits (drivers.MaxBundleFiles and the others),
// so whatever it accepts the bundle loader accepts too. Every refusal is an
// EINVALID error.
func Unpack(r io.Reader) (fs.FS, string, error) {
	gz, err := gzip.NewReader(r)
	if err != nil {
		return nil, "", invalidArchive("it is not gzip-compressed (%v); create it with tar -czf", err)
	}
	defer gz.Close()
	files := fstest.MapFS{}
	var total int64
	tr := tar.NewReader(gz)
	for n := 0; ; n++ {
		hdr, err := tr.Next()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			return nil, "", invalidArchive("it is not a valid tar archive: %v", err)
		}
		if n >= drivers.MaxBundleFiles {
			return nil, "", invalidArchive("it holds more than %d entries (files and folders); keep only what the driver needs", drivers.MaxBundleFiles)
		}
		name, err := entryName(hdr.Name)
		if err != nil {
			return nil, "", err
		}
		switch hdr.Typeflag {
		case tar.TypeDir:
			continue
		case tar.TypeXGlobalHeader:
			continue
		case tar.TypeReg:
		default:
			return nil, "", invalidArchive("entry %q is not a regular file or folder (links and devices are not allowed)", hdr.Name)
		}
		if name == "." {
			return nil, "", invalidArchive("entry %q has no file name", hdr.Name)
		}
		total += hdr.Size
		if msg := drivers.BundleOverLimit(len(files)+1, hdr.Size, total); msg != "" {
			return nil, "", invalidArchive("%q: %s", name, msg)
		}
		data, err := io.ReadAll(io.LimitReader(tr, hdr.Size))
		if err != nil {
			return nil, "", invalidArchive("read %q: %v", name, err)
		}
		if _, dup := files[name]; dup {
			return nil, "", invalidArchive("it holds %q twice", name)
		}
		files[name] = &fstest.MapFile{Data: data, Mode: 0o644}
	}
	root, err := bundleRoot(files)
	if err != nil {
		return nil, "", err
	}
	return files, root, nil
}

// entryName checks an archive entry's name and returns it cleaned.
func entryName(raw string) (string, error) {
	if !utf8.ValidString(raw) {
		return "", invalidArchive("entry name %q is not UTF-8; rename the file", raw)
	}
	if raw == "" || strings.ContainsRune(raw, '\\') || strings.ContainsRune(raw, 0) {
		return "", invalidArchive("entry name %q is not allowed", raw)
	}
	if path.IsAbs(raw) {
		return "", invalidArchive("entry %q has an absolute path; archive the bundle with relative paths", raw)
	}
	for _, part := range strings.Split(raw, "/") {
		if part == ".." {
			return "", invalidArchive("entry %q points outside the bundle (..)", raw)
		}
	}
	return path.Clean(raw), nil
}

// bundleRoot finds the folder holding driver.styrmin.yml: the top, or the only top-level folder.
func bundleRoot(files fstest.MapFS) (string, error) {
	if _, ok := files[drivers.SpecFile]; ok {
		return ".", nil
	}
	var roots []string
	for name := range files {
		dir, file := path.Split(name)
		if file == drivers.SpecFile && strings.Count(dir, "/") == 1 {
			roots = append(roots, strings.TrimSuffix(dir, "/"))
		}
	}
	switch len(roots) {
	case 1:
		return roots[0], nil
	case 0:
		return "", invalidArchive("%s is missing: put it at the top of the archive or in one top-level folder", drivers.SpecFile)
	default:
		slices.Sort(roots)
		return "", invalidArchive("it holds several bundles (%s); upload one driver per archive", strings.Join(roots, ", "))
	}
}

// invalidArchive is the error for an upload that is not a usable bundle archive.
func invalidArchive(format string, args ...any) error {
	return styrmin.Errorf(styrmin.EINVALID, "The archive cannot be used: "+format, args...)
}

// Pack writes files (bundle-relative names) as a gzip-compressed tar archive.
// The output depends only on the names and contents, so the same bundle always
// packs to the same bytes.
func Pack(files map[string][]byte) ([]byte, error) {
	var buf bytes.Buffer
	gz := gzip.NewWriter(&buf)
	tw := tar.NewWriter(gz)
	for _, name := range slices.Sorted(maps.Keys(files)) {
		data := files[name]
		hdr := &tar.Header{
			Name:     name,
			Mode:     0o644,
			Size:     int64(len(data)),
			ModTime:  time.Unix(0, 0),
			Typeflag: tar.TypeReg,
			Format:   tar.FormatPAX,
		}
		if err := tw.WriteHeader(hdr); err != nil {
			return nil, fmt.Errorf("pack %s: %w", name, err)
		}
		if _, err := tw.Write(data); err != nil {
			return nil, fmt.Errorf("pack %s: %w", name, err)
		}
	}
	if err := tw.Close(); err != nil {
		return nil, fmt.Errorf("pack: %w", err)
	}
	if err := gz.Close(); err != nil {
		return nil, fmt.Errorf("pack: %w", err)
	}
	return buf.Bytes(), nil
}
