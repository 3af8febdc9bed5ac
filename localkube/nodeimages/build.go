package nodeimages

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"time"

	"github.com/styrmin/styrmin/localkube/ociimage"
	"github.com/styrmin/styrmin/localkube/substitute"
)

// mirror is the apt source mmdebstrap builds from: the machine's own.
const mirror = "/etc/apt/sources.list.d/debian.sources"

// Images are the built images of one recipe, in their cache folder.
type Images struct {
	// Layout is the OCI image layout tar holding every image, for
	// `ctr images import`.
	Layout string
	// Rules say which requested repository each image stands in for.
	Rules []substitute.Rule
}

const (
	layoutFile = "images.tar"
	rulesFile  = "rules.json"
)

// Build returns the images of the current recipe from the cache folder dir
// (e.g. .cluster/images), building them first when the cache has no
// complete entry for the recipe. An entry is written to a temporary folder
// and renamed into place when complete, so a half-written one is never
// used; entries of older recipes are removed. logf reports progress.
func Build(ctx context.Context, dir string, logf func(format string, args ...any)) (Images, error) {
	key, err := recipeKey(files)
	if err != nil {
		return Images{}, fmt.Errorf("node images: recipe: %w", err)
	}
	entry := filepath.Join(dir, key)
	if images, err := load(entry); err == nil {
		return images, nil
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return Images{}, fmt.Errorf("node images: %w", err)
	}
	tmp, err := os.MkdirTemp(dir, ".building-"+key+"-")
	if err != nil {
		return Images{}, fmt.Errorf("node images: %w", err)
	}
	defer os.RemoveAll(tmp)
	// MkdirTemp makes it private; the entry is for everyone to read.
	if err := os.Chmod(tmp, 0o755); err != nil {
		return Images{}, fmt.Errorf("node images: %w", err)
	}
	logf("node images: building postgres, redis, nginx, busybox and python from Debian %s packages with mmdebstrap into %s (first time: about a minute; cached afterwards)", suite, entry)
	started := time.Now()
	if err := build(ctx, tmp); err != nil {
		return Images{}, fmt.Errorf("node images: %w", err)
	}
	// An entry without its rules (written last) is not complete: replace it.
	if err := os.RemoveAll(entry); err != nil {
		return Images{}, fmt.Errorf("node images: %w", err)
	}
	if err := os.Rename(tmp, entry); err != nil {
		return Images{}, fmt.Errorf("node images: %w", err)
	}
	logf("node images: built in %s", time.Since(started).Round(time.Second))
	removeOthers(dir, key, logf)
	images, err := load(entry)
	if err != nil {
		return Images{}, fmt.Errorf("node images: %w", err)
	}
	return images, nil
}

// load reads a complete cache entry.
func load(entry string) (Images, error) {
	data, err := os.ReadFile(filepath.Join(entry, rulesFile))
	if err != nil {
		return Images{}, err
	}
	var rules []substitute.Rule
	if err := json.Unmarshal(data, &rules); err != nil {
		return Images{}, fmt.Errorf("node images: %s: %w", entry, err)
	}
	layout := filepath.Join(entry, layoutFile)
	if _, err := os.Stat(layout); err != nil {
		return Images{}, err
	}
	return Images{Layout: layout, Rules: rules}, nil
}

// removeOthers removes the entries of other recipes and leftover temporary
// folders of builds that did not finish; what it cannot remove only costs
// disk space, so it is reported, not returned.
func removeOthers(dir, key string, logf func(format string, args ...any)) {
	entries, _ := os.ReadDir(dir) //nolint:errcheck // nothing to remove
	for _, e := range entries {
		if e.Name() == key {
			continue
		}
		if err := os.RemoveAll(filepath.Join(dir, e.Name())); err != nil {
			logf("node images: could not remove an old cache entry: %v", err)
		}
	}
}

// build makes the shared base with mmdebstrap, each image's own layer and
// the layout and rules, in the folder out.
func build(ctx context.Context, out string) error {
	factsDir := filepath.Join(out, "facts")
	if err := os.Mkdir(factsDir, 0o755); err != nil {
		return err
	}
	base := filepath.Join(out, "base.tar")
	if err := mmdebstrap(ctx, mmdebstrapArgs(factsDir, base, mirror)); err != nil {
		return err
	}
	f, versions, err := readFacts(factsDir)
	if err != nil {
		return err
	}
	var images []ociimage.LayeredImage
	var rules []substitute.Rule
	// The layout holds the layers once written: the rest is scratch.
	scratch := []string{base, factsDir}
	for i, s := range standIns {
		entries, err := s.layer(f)
		if err != nil {
			return fmt.Errorf("%s: %w", s.image, err)
		}
		layer := filepath.Join(out, fmt.Sprintf("layer-%d.tar", i))
		scratch = append(scratch, layer)
		if err := writeLayer(layer, entries); err != nil {
			return fmt.Errorf("%s: %w", s.image, err)
		}
		runs, err := s.runs(versions)
		if err != nil {
			return fmt.Errorf("%s: %w", s.image, err)
		}
		images = append(images, ociimage.LayeredImage{Name: s.image, Layers: []string{base, layer}, Config: s.config})
		rules = append(rules, substitute.Rule{Repository: s.repository, Image: s.image, Runs: runs})
	}
	if err := writeLayout(filepath.Join(out, layoutFile), images); err != nil {
		return err
	}
	if err := removeAll(scratch); err != nil {
		return err
	}
	data, err := json.MarshalIndent(rules, "", "  ")
	if err != nil {
		return err
	}
	return os.WriteFile(filepath.Join(out, rulesFile), data, 0o644)
}

// mmdebstrap runs mmdebstrap; its output goes to the error when it fails.
func mmdebstrap(ctx context.Context, args []string) error {
	path, err := exec.LookPath("mmdebstrap")
	if err != nil {
		return errors.New("mmdebstrap is not installed: run scripts/ensure-node-packages (Debian package mmdebstrap) and start again")
	}
	cmd := exec.CommandContext(ctx, path, args...)
	// Stopped, mmdebstrap unmounts and removes its chroot before it exits;
	// killed, it would leave them.
	cmd.Cancel = func() error { return cmd.Process.Signal(syscall.SIGTERM) }
	cmd.WaitDelay = time.Minute
	out, err := cmd.CombinedOutput()
	if err != nil {
		return fmt.Errorf("mmdebstrap could not build the Debian %s root filesystem from %s (%v); "+
			"check that this machine reaches its Debian mirror (apt-get update), then start again:\n%s",
			suite, mirror, err, lastLines(string(out), 15))
	}
	return nil
}

func lastLines(s string, n int) string {
	lines := strings.Split(strings.TrimRight(s, "\n"), "\n")
	if len(lines) > n {
		lines = lines[len(lines)-n:]
	}
	return strings.Join(lines, "\n")
}

// readFacts reads what the hooks copied out of the base.
func readFacts(factsDir string) (facts, map[string]string, error) {
	read := func(name string) ([]byte, error) { return os.ReadFile(filepath.Join(factsDir, name)) }
	status, err := read("status")
	if err != nil {
		return facts{}, nil, err
	}
	var f facts
	if f.passwd, err = read("passwd"); err != nil {
		return facts{}, nil, err
	}
	if f.group, err = read("group"); err != nil {
		return facts{}, nil, err
	}
	applets, err := read("busybox-applets")
	if err != nil {
		return facts{}, nil, err
	}
	f.busyboxApplets = strings.Fields(string(applets))
	return f, installedVersions(status), nil
}

func writeLayout(p string, images []ociimage.LayeredImage) error {
	f, err := os.Create(p)
	if err != nil {
		return err
	}
	if err := ociimage.WriteAll(f, images); err != nil {
		f.Close()
		return err
	}
	return f.Close()
}

func removeAll(paths []string) error {
	for _, p := range paths {
		if err := os.RemoveAll(p); err != nil {
			return err
		}
	}
	return nil
}
