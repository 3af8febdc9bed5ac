package catalog

import (
	"bytes"
	"context"
	"fmt"
	"strconv"
	"strings"
	"testing/fstest"

	"gopkg.in/yaml.v3"

	"github.com/styrmin/styrmin"
	"github.com/styrmin/styrmin/drivers"
)

// devBuildMark starts the semver build metadata of a development build:
// version 1.2.0 of a folder, changed after 1.2.0 was imported, is imported
// again as 1.2.0+dev.1, then 1.2.0+dev.2...
const devBuildMark = "+dev."

// DevBuildOf returns the version a development build was made from ("1.2.0"
// for "1.2.0+dev.3") and its number, or ok false for a version that is not one.
func DevBuildOf(version string) (base string, n int, ok bool) {
	base, number, found := strings.Cut(version, devBuildMark)
	if !found {
		return version, 0, false
	}
	n, err := strconv.Atoi(number)
	if err != nil || n < 1 {
		return version, 0, false
	}
	return base, n, true
}

// importDevBuild imports b, whose version the catalogue holds with other
// content, as a development build of that version: the newest build of it
// when b has that build's content (nothing is imported), else a new one
// numbered after it. The bundle's driver file then names the build's version,
// so the stored bundle, its digest and every deployment of it agree.
func (c *Catalog) importDevBuild(ctx context.Context, b *drivers.Bundle, by string) (Imported, error) {
	name, base := b.Driver.Metadata.Name, b.Driver.Spec.Version
	stored, err := c.q.ListDriverVersions(ctx, name)
	if err != nil {
		return Imported{}, fmt.Errorf("catalog: dev build of %s %s: %w", name, base, err)
	}
	newest, newestDigest := 0, ""
	for _, v := range stored {
		if of, n, ok := DevBuildOf(v.Version); ok && of == base && n > newest {
			newest, newestDigest = n, v.Digest
		}
	}
	if newest > 0 {
		build, err := asDevBuild(ctx, b, newest)
		if err != nil {
			return Imported{}, err
		}
		if build.Digest() == newestDigest {
			return Imported{Name: name, Version: build.Driver.Spec.Version}, nil
		}
	}
	build, err := asDevBuild(ctx, b, newest+1)
	if err != nil {
		return Imported{}, err
	}
	return c.Import(ctx, build, by)
}

// asDevBuild is b as development build n of its version: its driver file's
// spec.version rewritten in place (nothing else of the file changes) and the
// bundle loaded again from its files.
func asDevBuild(ctx context.Context, b *drivers.Bundle, n int) (*drivers.Bundle, error) {
	version := fmt.Sprintf("%s%s%d", b.Driver.Spec.Version, devBuildMark, n)
	spec, err := withVersion(b.Files[drivers.SpecFile], version)
	if err != nil {
		return nil, fmt.Errorf("catalog: dev build %s: %w", version, err)
	}
	fsys := fstest.MapFS{}
	for name, data := range b.Files {
		fsys[name] = &fstest.MapFile{Data: data}
	}
	fsys[drivers.SpecFile] = &fstest.MapFile{Data: spec}
	build, err := drivers.LoadBundle(ctx, fsys, ".")
	if err != nil {
		return nil, invalidBundle(drivers.SpecFile, err)
	}
	return build, nil
}

// withVersion is a driver file with its spec.version's value replaced by
// version, found by its position so that comments and layout stay as written.
func withVersion(spec []byte, version string) ([]byte, error) {
	var doc yaml.Node
	if err := yaml.Unmarshal(spec, &doc); err != nil {
		return nil, err
	}
	node := lookup(&doc, "spec", "version")
	if node == nil || node.Kind != yaml.ScalarNode {
		return nil, styrmin.Errorf(styrmin.EINVALID, "%s has no spec.version to make a development build of.", drivers.SpecFile)
	}
	lines := bytes.SplitAfter(spec, []byte("\n"))
	line := lines[node.Line-1]
	start := byteOffset(line, node.Column-1)
	end := start + len(node.Value)
	if node.Style&(yaml.DoubleQuotedStyle|yaml.SingleQuotedStyle) != 0 {
		end += 2
	}
	if end > len(line) {
		return nil, fmt.Errorf("spec.version is not written on one line")
	}
	replaced := append(append(append([]byte{}, line[:start]...), strconv.Quote(version)...), line[end:]...)
	lines[node.Line-1] = replaced
	return bytes.Join(lines, nil), nil
}

// byteOffset is the byte offset of the rune at index runes of line (yaml.v3
// counts columns in runes).
func byteOffset(line []byte, runes int) int {
	for i := range string(line) {
		if runes == 0 {
			return i
		}
		runes--
	}
	return len(line)
}

// lookup is the value node at path in a YAML document's mappings, nil when absent.
func lookup(node *yaml.Node, path ...string) *yaml.Node {
	if node.Kind == yaml.DocumentNode && len(node.Content) == 1 {
		node = node.Content[0]
	}
	for _, key := range path {
		if node.Kind != yaml.MappingNode {
			return nil
		}
		var next *yaml.Node
		for i := 0; i+1 < len(node.Content); i += 2 {
			if node.Content[i].Value == key {
				next = node.Content[i+1]
			}
		}
		if next == nil {
			return nil
		}
		node = next
	}
	return node
}
