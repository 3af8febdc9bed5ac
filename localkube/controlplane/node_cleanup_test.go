package controlplane

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// A checkout reached through a symbolic link has its node's mounts found:
// mountinfo names them by their real path, which the link's path is
// resolved to; mounts of other folders, one whose name merely starts alike
// included, are not.
func TestMountsUnderAFolderReachedThroughASymlinkAreFound(t *testing.T) {
	t.Parallel()
	base := t.TempDir()
	real := filepath.Join(base, "main", ".cluster")
	if err := os.MkdirAll(real, 0o755); err != nil {
		t.Fatal(err)
	}
	link := filepath.Join(base, "worktree-cluster")
	if err := os.Symlink(real, link); err != nil {
		t.Fatal(err)
	}
	mountinfo := strings.Join([]string{
		"22 1 8:1 / / rw,relatime shared:1 - ext4 /dev/sda1 rw",
		"310 22 0:52 / " + real + "/run/node/pods/a rw - tmpfs tmpfs rw",
		"311 310 0:53 / " + strings.ReplaceAll(real, " ", `\040`) + "/run/node/pods/with\\040space rw - tmpfs tmpfs rw",
		"312 22 0:54 / " + real + "-other/run rw - tmpfs tmpfs rw",
	}, "\n")

	for _, dir := range []string{link, real} {
		points, err := selectMountsUnder(strings.NewReader(mountinfo), dir)
		if err != nil {
			t.Fatal(err)
		}
		want := []string{real + "/run/node/pods/a", real + "/run/node/pods/with space"}
		if !slices.Equal(points, want) {
			t.Fatalf("mounts under %s: got %q, want %q", dir, points, want)
		}
	}
}
