package devcluster

import (
	"encoding/json"
	"fmt"
	"os/exec"
	"path/filepath"
	"sort"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

// TestTheRepositorysModulesRequireOneVersionOfEachSharedModule keeps the
// repository's three Go modules (the product, localkube/ and tools/, the code
// generators') on one version of every module two of them require. Go's
// build cache keys a compiled package by the versions of everything below
// it: with golang.org/x/net at two versions, client-go and the Kubernetes
// API types above it are compiled twice on a cold cache, once for the
// product's tests and once for the local cluster's programs (minutes on 2
// cores, with the race detector and without).
func TestTheRepositorysModulesRequireOneVersionOfEachSharedModule(t *testing.T) {
	t.Parallel()
	root, err := FindRoot(".")
	require.NoError(t, err)
	found := map[string]map[string][]string{} // module path → version → go.mod files
	for _, gomod := range []string{"go.mod", "localkube/go.mod", "tools/go.mod"} {
		for path, version := range requiredVersions(t, filepath.Join(root, gomod)) {
			if found[path] == nil {
				found[path] = map[string][]string{}
			}
			found[path][version] = append(found[path][version], gomod)
		}
	}
	var differ []string
	for path, byVersion := range found {
		if len(byVersion) > 1 {
			differ = append(differ, fmt.Sprintf("%s: %v", path, byVersion))
		}
	}
	sort.Strings(differ)
	if len(differ) > 0 {
		t.Fatalf("require the newest version in the others too (go get MODULE@VERSION, then go mod tidy, in each):\n%s", strings.Join(differ, "\n"))
	}
}

// requiredVersions reads a go.mod's requirements as module path → version,
// with its replacements applied, as `go mod edit -json` reads them.
func requiredVersions(t *testing.T, gomod string) map[string]string {
	t.Helper()
	out, err := exec.Command("go", "mod", "edit", "-json", gomod).Output()
	require.NoError(t, err, "go mod edit -json %s", gomod)
	type module struct{ Path, Version string }
	var file struct {
		Require []module
		Replace []struct{ Old, New module }
	}
	require.NoError(t, json.Unmarshal(out, &file))
	versions := make(map[string]string, len(file.Require))
	for _, r := range file.Require {
		versions[r.Path] = r.Version
	}
	for _, r := range file.Replace {
		if _, ok := versions[r.Old.Path]; ok && r.New.Version != "" {
			versions[r.Old.Path] = r.New.Version
		}
	}
	return versions
}
