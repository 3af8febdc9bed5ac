package controlplane

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"time"

	"github.com/styrmin/styrmin/localkube/nodeimages"
	"github.com/styrmin/styrmin/localkube/ociimage"
	"github.com/styrmin/styrmin/localkube/substitute"
)

// ImagesDir caches the images built from Debian packages
// (localkube/nodeimages); it outlives stop and start.
func (l Layout) ImagesDir() string { return filepath.Join(l.Dir, "images") }

// ImageRulesFile holds the running node's image substitutions, a JSON list
// of substitute.Rule.
func (l Layout) ImageRulesFile() string { return l.nodePath("image-rules.json") }

// ImportImage builds img (one static binary) and imports it into the real
// node's containerd, in the CRI's namespace, under img.Name only.
func ImportImage(ctx context.Context, layout Layout, img ociimage.Image) error {
	tmp, err := os.CreateTemp(layout.NodeDir(), "image-*.tar")
	if err != nil {
		return fmt.Errorf("import image %s: %w", img.Name, err)
	}
	defer os.Remove(tmp.Name())
	if err := ociimage.Write(tmp, img); err != nil {
		tmp.Close()
		return fmt.Errorf("import image %s: %w", img.Name, err)
	}
	if err := tmp.Close(); err != nil {
		return fmt.Errorf("import image %s: %w", img.Name, err)
	}
	if err := ctrImport(ctx, layout, img.Name, tmp.Name()); err != nil {
		return fmt.Errorf("import image %s: %w", img.Name, err)
	}
	return nil
}

// importNodeImages builds the stand-ins for the images the bundled drivers
// request (or takes them from ImagesDir), imports them into the real node's
// containerd, writes their rules to ImageRulesFile and returns them.
func importNodeImages(ctx context.Context, layout Layout, logf func(format string, args ...any)) ([]substitute.Rule, error) {
	images, err := nodeimages.Build(ctx, layout.ImagesDir(), logf)
	if err != nil {
		return nil, err
	}
	started := time.Now()
	// Every image is named styrmin.local/...: the prefix keeps ctr from
	// adding import-<date> names.
	if err := ctrImport(ctx, layout, "styrmin.local", images.Layout); err != nil {
		return nil, fmt.Errorf("import the node images: %w", err)
	}
	logf("imported %d node images in %s", len(images.Rules), time.Since(started).Round(100*time.Millisecond))
	data, err := json.MarshalIndent(images.Rules, "", "  ")
	if err != nil {
		return nil, fmt.Errorf("write the node images' rules: %w", err)
	}
	if err := os.WriteFile(layout.ImageRulesFile(), data, 0o644); err != nil {
		return nil, fmt.Errorf("write the node images' rules: %w", err)
	}
	return images.Rules, nil
}

// ctrImport imports the OCI layout tar at path into the CRI's namespace,
// keeping only the images whose names start with baseName.
func ctrImport(ctx context.Context, layout Layout, baseName, path string) error {
	cmd := exec.CommandContext(ctx, filepath.Join(layout.BinDir(), "ctr"), "--address", layout.ContainerdSocket(),
		"--namespace", "k8s.io", "images", "import", "--base-name", baseName, path)
	if out, err := cmd.CombinedOutput(); err != nil {
		return fmt.Errorf("ctr: %w: %s", err, out)
	}
	return nil
}
