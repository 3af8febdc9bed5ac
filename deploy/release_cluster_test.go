package deploy_test

import (
	"archive/tar"
	"archive/zip"
	"bufio"
	"bytes"
	"compress/gzip"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/stretchr/testify/require"
	"helm.sh/helm/v3/pkg/chart/loader"

	"github.com/styrmin/styrmin/devcluster/kubetest"
	"github.com/styrmin/styrmin/version"
)

// releaseVersion is the version the release test builds.
const releaseVersion = "0.1.0-test"

// The images of the release, as scripts/images names them and imports them
// into the local node.
const (
	releaseImage  = "styrmin.local/styrmin:" + releaseVersion
	releaseRunner = "styrmin.local/action-runner:" + releaseVersion
)

// built is the one `make release VERSION=0.1.0-test` of a test process,
// shared by every test that needs it (the release's checks, the engine's
// image on the node, the new user's install): building the two images with
// buildah takes minutes of the machine's cores, so it runs once (sync.Once),
// into a folder TestMain removes, with IMPORT=1 so that the images are in
// the node's containerd as well.
var built struct {
	once sync.Once
	// dist is DIST; dir is what the script printed, dist/VERSION.
	dist, dir string
	// stderr is the script's progress, the base images' substitution lines included.
	stderr string
	err    error
}

// TestMain runs the package's tests and removes the shared release.
func TestMain(m *testing.M) {
	code := m.Run()
	if built.dist != "" {
		os.RemoveAll(built.dist) //nolint:errcheck // a temporary folder
	}
	os.Exit(code)
}

// releaseArtefacts runs `make release`'s script for releaseVersion once
// per test process (with buildah, on the node's base image, so it needs
// the local cluster's images) and returns the folder of its artefacts and
// the script's progress.
func releaseArtefacts(t *testing.T) (dir, stderr string) {
	t.Helper()
	kubetest.Kubeconfig(t) // the images' base comes from the cluster's node images
	built.once.Do(func() {
		if built.dist, built.err = os.MkdirTemp("", "styrmin-release-"); built.err != nil {
			return
		}
		cmd := exec.Command(filepath.Join("..", "scripts", "release"), releaseVersion)
		cmd.Env = append(os.Environ(), "DIST="+built.dist, "IMPORT=1")
		var errOut bytes.Buffer
		cmd.Stderr = &errOut
		out, err := cmd.Output()
		built.dir, built.stderr, built.err = strings.TrimSpace(string(out)), errOut.String(), err
	})
	require.NoError(t, built.err, "%s", built.stderr)
	return built.dir, built.stderr
}

// TestReleaseBuildsEveryArtefactStampedWithItsVersion runs `make release`'s
// script for 0.1.0-test and checks each artefact and SHA256SUMS.
func TestReleaseBuildsEveryArtefactStampedWithItsVersion(t *testing.T) {
	dir, _ := releaseArtefacts(t)
	require.Equal(t, filepath.Join(built.dist, releaseVersion), dir)

	want := []string{"SHA256SUMS", "action-runner-image-0.1.0-test.tar", "styrmin-0.1.0+test-py3-none-any.whl", "styrmin-0.1.0+test.tar.gz",
		"styrmin-0.1.0-test-linux-amd64", "styrmin-0.1.0-test.tgz", "styrmin-image-0.1.0-test.tar"}
	entries, err := os.ReadDir(dir)
	require.NoError(t, err)
	var names []string
	for _, e := range entries {
		names = append(names, e.Name())
	}
	require.Equal(t, want, names)
	requireSums(t, dir, want[1:])

	// The binary says its version.
	stamped, err := exec.Command(filepath.Join(dir, "styrmin-0.1.0-test-linux-amd64"), "version", "--output", "json").Output()
	require.NoError(t, err)
	var info version.Info
	require.NoError(t, json.Unmarshal(stamped, &info))
	require.Equal(t, releaseVersion, info.Version)
	require.NotEmpty(t, info.BuildDate)

	ch, err := loader.LoadFile(filepath.Join(dir, "styrmin-0.1.0-test.tgz"))
	require.NoError(t, err)
	require.Equal(t, releaseVersion, ch.Metadata.Version)
	require.Equal(t, releaseVersion, ch.Metadata.AppVersion)

	// The wheel and the sdist carry the version in Python's spelling, in their metadata and in the package.
	whl, err := zip.OpenReader(filepath.Join(dir, "styrmin-0.1.0+test-py3-none-any.whl"))
	require.NoError(t, err)
	defer whl.Close()
	require.Contains(t, readZip(t, whl, "styrmin-0.1.0+test.dist-info/METADATA"), "\nVersion: 0.1.0+test\n")
	require.Contains(t, readZip(t, whl, "styrmin/__init__.py"), "\n__version__ = \"0.1.0+test\"\n")
	sdist := readTarGz(t, filepath.Join(dir, "styrmin-0.1.0+test.tar.gz"))
	require.Contains(t, sdist["styrmin-0.1.0+test/PKG-INFO"], "\nVersion: 0.1.0+test\n")
	require.Contains(t, sdist["styrmin-0.1.0+test/styrmin/__init__.py"], "\n__version__ = \"0.1.0+test\"\n")
	require.Contains(t, sdist, "styrmin-0.1.0+test/LICENSE")

	// The images are labelled with the version, the licence and the substituted base.
	for _, image := range []string{"styrmin-image-0.1.0-test.tar", "action-runner-image-0.1.0-test.tar"} {
		labels := ociLabels(t, filepath.Join(dir, image))
		require.Equal(t, releaseVersion, labels["org.opencontainers.image.version"], image)
		require.Equal(t, "Apache-2.0", labels["org.opencontainers.image.licenses"], image)
		require.Equal(t, "https://github.com/styrmin/styrmin", labels["org.opencontainers.image.source"], image)
		require.Contains(t, labels["io.styrmin.base-substitution"], "gcr.io/distroless/python3-debian12:nonroot -> styrmin.local/python:3", image)
	}
}

// requireSums checks that dir's SHA256SUMS lists exactly names with their sha256.
func requireSums(t *testing.T, dir string, names []string) {
	t.Helper()
	f, err := os.Open(filepath.Join(dir, "SHA256SUMS"))
	require.NoError(t, err)
	defer f.Close()
	sums := map[string]string{}
	lines := bufio.NewScanner(f)
	for lines.Scan() {
		sum, name, ok := strings.Cut(lines.Text(), "  ")
		require.True(t, ok, "a line of SHA256SUMS is SUM  NAME: %q", lines.Text())
		sums[name] = sum
	}
	require.Len(t, sums, len(names))
	for _, name := range names {
		data, err := os.ReadFile(filepath.Join(dir, name))
		require.NoError(t, err)
		got := sha256.Sum256(data)
		require.Equal(t, hex.EncodeToString(got[:]), sums[name], name)
	}
}

// readZip is the text of one file of an open zip archive.
func readZip(t *testing.T, z *zip.ReadCloser, name string) string {
	t.Helper()
	f, err := z.Open(name)
	require.NoError(t, err, name)
	defer f.Close()
	data, err := io.ReadAll(f)
	require.NoError(t, err)
	return string(data)
}

// ociLabels are the labels in the config of the one image of an OCI archive.
func ociLabels(t *testing.T, archive string) map[string]string {
	t.Helper()
	var config struct {
		Config struct{ Labels map[string]string } `json:"config"`
	}
	ociImage(t, archive, &config)
	return config.Config.Labels
}

// ociImage reads the config of the one image of an OCI archive into config
// and returns its layers' digests.
func ociImage(t *testing.T, archive string, config any) (layers []string) {
	t.Helper()
	files := readTar(t, archive)
	var index struct {
		Manifests []struct{ Digest string } `json:"manifests"`
	}
	require.NoError(t, json.Unmarshal([]byte(files["index.json"]), &index))
	require.Len(t, index.Manifests, 1)
	var manifest struct {
		Config struct{ Digest string }   `json:"config"`
		Layers []struct{ Digest string } `json:"layers"`
	}
	require.NoError(t, json.Unmarshal([]byte(files[blobPath(index.Manifests[0].Digest)]), &manifest))
	require.NoError(t, json.Unmarshal([]byte(files[blobPath(manifest.Config.Digest)]), config))
	for _, l := range manifest.Layers {
		layers = append(layers, l.Digest)
	}
	return layers
}

// blobPath is where an OCI layout keeps the blob of a digest.
func blobPath(digest string) string {
	return "blobs/" + strings.Replace(digest, ":", "/", 1)
}

// readTar is every regular file of a tar archive by name, small ones only (the layers are skipped).
func readTar(t *testing.T, path string) map[string]string {
	t.Helper()
	f, err := os.Open(path)
	require.NoError(t, err)
	defer f.Close()
	return tarFiles(t, f)
}

// tarFiles is every regular file under 1 MiB of the tar stream r, by name.
func tarFiles(t *testing.T, r io.Reader) map[string]string {
	t.Helper()
	files := map[string]string{}
	tr := tar.NewReader(r)
	for {
		h, err := tr.Next()
		if err == io.EOF {
			return files
		}
		require.NoError(t, err)
		if h.Typeflag != tar.TypeReg || h.Size > 1<<20 {
			continue
		}
		data, err := io.ReadAll(tr)
		require.NoError(t, err)
		files[strings.TrimPrefix(h.Name, "./")] = string(data)
	}
}

// readTarGz is every small regular file of a gzipped tar archive by name.
func readTarGz(t *testing.T, path string) map[string]string {
	t.Helper()
	f, err := os.Open(path)
	require.NoError(t, err)
	defer f.Close()
	gz, err := gzip.NewReader(f)
	require.NoError(t, err)
	return tarFiles(t, gz)
}
