package controlplane

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"

	"github.com/styrmin/styrmin/localkube/ociimage"
)

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
	cmd := exec.CommandContext(ctx, filepath.Join(layout.BinDir(), "ctr"), "--address", layout.ContainerdSocket(),
		"--namespace", "k8s.io", "images", "import", "--base-name", img.Name, tmp.Name())
	if out, err := cmd.CombinedOutput(); err != nil {
		return fmt.Errorf("import image %s: ctr: %w: %s", img.Name, err, out)
	}
	return nil
}
