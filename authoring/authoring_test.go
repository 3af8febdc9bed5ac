package authoring_test

import (
	"bytes"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/styrmin/styrmin"
	"github.com/styrmin/styrmin/actions"
	"github.com/styrmin/styrmin/authoring"
	"github.com/styrmin/styrmin/catalog"
	"github.com/styrmin/styrmin/drivers"
	"github.com/styrmin/styrmin/drivers/bundled"
)

// newDriver creates a driver folder named name from hello-web in a fresh folder.
func newDriver(t *testing.T, name string) string {
	t.Helper()
	dest, err := authoring.New(t.Context(), t.TempDir(), name, authoring.DefaultTemplate)
	require.NoError(t, err)
	return dest
}

// newDriverWithTest is newDriver with one more test, tests/test_<name>.py,
// whose one test method runs body.
func newDriverWithTest(t *testing.T, name, body string) string {
	t.Helper()
	dir := newDriver(t, name)
	source := "import unittest\n\nclass Hostile(unittest.TestCase):\n    def test_" + name + "(self):\n" +
		"        exec(" + strconv.Quote(body) + ")\n"
	require.NoError(t, os.WriteFile(filepath.Join(dir, "tests", "test_"+name+".py"), []byte(source), 0o644))
	return dir
}

// edit replaces old by new in the file name of the driver folder dir, which must hold old.
func edit(t *testing.T, dir, name, old, new string) {
	t.Helper()
	p := filepath.Join(dir, name)
	data, err := os.ReadFile(p)
	require.NoError(t, err)
	require.Contains(t, string(data), old)
	require.NoError(t, os.WriteFile(p, []byte(strings.Replace(string(data), old, new, 1)), 0o644))
}

// TestANewDriverLintsRendersAndPassesItsTests is the loop as a new user runs it.
func TestANewDriverLintsRendersAndPassesItsTests(t *testing.T) {
	t.Parallel()
	dir := newDriver(t, "my-app")

	problems, err := drivers.LintPath(t.Context(), dir)
	require.NoError(t, err)
	require.Empty(t, problems)
	for _, f := range []string{"driver.styrmin.yml", "actions.py", "README.md", "chart/Chart.yaml", "tests/test_actions.py"} {
		require.FileExists(t, filepath.Join(dir, f))
	}

	r, err := authoring.Render(t.Context(), dir, authoring.RenderOptions{Sets: []string{"replicas=3", "theme=forest"}, Version: "1.26.0"})
	require.NoError(t, err)
	require.EqualValues(t, 3, r.Values["replicaCount"])
	require.Contains(t, r.Manifest, "name: demo-my-app\n", "the chart's objects carry the new driver's name")
	require.Contains(t, r.Manifest, `image: "nginx:1.26.0"`)
	require.NotContains(t, r.Manifest, "hello-web")
	require.True(t, r.Permissions.Empty(), "the template needs no approval")

	var out bytes.Buffer
	passed, err := authoring.Test(t.Context(), dir, time.Minute, &out)
	require.NoError(t, err)
	require.True(t, passed, out.String())
	require.Contains(t, out.String(), "test_stops_then_starts_the_web_component")
	require.Contains(t, out.String(), "\nOK")
}

func TestNewRefusesBadNamesUnknownTemplatesAndExistingFolders(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	for _, tc := range []struct{ name, from, want string }{
		{"My_App", "hello-web", `"My_App" is not a valid driver name`},
		{"../escape", "hello-web", "is not a valid driver name"},
		{"", "hello-web", "is not a valid driver name"},
		{"a-name-much-too-long-for-a-chart", "hello-web", "at most 20"},
		{"ok", "nginx", `no bundled driver "nginx"`},
	} {
		_, err := authoring.New(t.Context(), dir, tc.name, tc.from)
		require.ErrorContains(t, err, tc.want, tc.name)
		require.Equal(t, styrmin.EINVALID, styrmin.ErrorCode(err), tc.name)
	}
	entries, err := os.ReadDir(dir)
	require.NoError(t, err)
	require.Empty(t, entries, "a refused name writes nothing")

	_, err = authoring.New(t.Context(), dir, "twice", authoring.DefaultTemplate)
	require.NoError(t, err)
	_, err = authoring.New(t.Context(), dir, "twice", authoring.DefaultTemplate)
	require.Equal(t, styrmin.ECONFLICT, styrmin.ErrorCode(err))
}

// TestABrokenActionFailsItsTestWithTheTestsMessage: an action that no longer
// starts what it stopped fails the test that says so, with unittest's message.
func TestABrokenActionFailsItsTestWithTheTestsMessage(t *testing.T) {
	t.Parallel()
	dir := newDriver(t, "broken")
	edit(t, dir, "actions.py", "    styrmin.start_components([WEB_COMPONENT])\n", "")

	var out bytes.Buffer
	passed, err := authoring.Test(t.Context(), dir, time.Minute, &out)
	require.NoError(t, err)
	require.False(t, passed)
	require.Contains(t, out.String(), "FAIL: test_stops_then_starts_the_web_component")
	require.Contains(t, out.String(), "Second list contains 1 additional elements.")
}

// TestATestThatRunsForeverIsStoppedAtTheTimeout is the hostile test: it spins
// and ignores SIGTERM, and is killed all the same.
func TestATestThatRunsForeverIsStoppedAtTheTimeout(t *testing.T) {
	t.Parallel()
	dir := newDriverWithTest(t, "forever", "import signal\n\nsignal.signal(signal.SIGTERM, signal.SIG_IGN)\nwhile True:\n    pass\n")

	start := time.Now()
	var out bytes.Buffer
	passed, err := authoring.Test(t.Context(), dir, 2*time.Second, &out)
	require.NoError(t, err)
	require.False(t, passed)
	require.Contains(t, out.String(), "The tests did not finish within 2s and were stopped.")
	require.Less(t, time.Since(start), 20*time.Second, "stopped at the timeout, killed after the grace period")
}

func TestTestNeedsATestsFolderAndAValidDriver(t *testing.T) {
	t.Parallel()
	dir := newDriver(t, "untested")
	require.NoError(t, os.RemoveAll(filepath.Join(dir, "tests")))
	_, err := authoring.Test(t.Context(), dir, time.Minute, &bytes.Buffer{})
	require.ErrorContains(t, err, "has no tests folder")

	edit(t, dir, "driver.styrmin.yml", "function: actions:restart", "function: actions:reboot")
	_, err = authoring.Test(t.Context(), dir, time.Minute, &bytes.Buffer{})
	var ps drivers.Problems
	require.ErrorAs(t, err, &ps)
	require.Contains(t, ps.Error(), "defines no top-level function reboot")
}

func TestRenderRefusesUnknownParametersAndBadValues(t *testing.T) {
	t.Parallel()
	dir := newDriver(t, "values")
	values := filepath.Join(t.TempDir(), "values.yaml")
	require.NoError(t, os.WriteFile(values, []byte("replicas: 11\n"), 0o644))
	for _, tc := range []struct {
		opts authoring.RenderOptions
		want string
	}{
		{authoring.RenderOptions{Sets: []string{"replica=3"}}, `no parameter "replica"`},
		{authoring.RenderOptions{Sets: []string{"replicas"}}, "is not NAME=VALUE"},
		{authoring.RenderOptions{Sets: []string{"theme=pink"}}, "not one of the choices"},
		{authoring.RenderOptions{ValuesFile: values}, "replicas"},
		{authoring.RenderOptions{ValuesFile: filepath.Join(dir, "missing.yaml")}, "Cannot read the values file"},
	} {
		_, err := authoring.Render(t.Context(), dir, tc.opts)
		require.ErrorContains(t, err, tc.want)
		require.Equal(t, styrmin.EINVALID, styrmin.ErrorCode(err))
	}
}

// TestRenderErrorsPointAtTheDriverFilesLine: a values template that fails
// with the values given names its line in driver.styrmin.yml, not in the template.
func TestRenderErrorsPointAtTheDriverFilesLine(t *testing.T) {
	t.Parallel()
	dir := newDriver(t, "lines")
	// Line 41 of the file is the template's third line (replicaCount).
	edit(t, dir, "driver.styrmin.yml", "replicaCount: {{ .Parameters.replicas }}",
		`replicaCount: {{ if eq .Parameters.replicas 7 }}{{ fail "seven is unlucky" }}{{ end }}{{ .Parameters.replicas }}`)
	_, err := authoring.Render(t.Context(), dir, authoring.RenderOptions{Sets: []string{"replicas=7"}})
	var ps drivers.Problems
	require.ErrorAs(t, err, &ps)
	require.Len(t, ps, 1)
	require.Equal(t, filepath.Join(dir, "driver.styrmin.yml")+":41:59: spec.helm.main.values: line 3 of the template: fail: seven is unlucky", ps[0].String())
}

// TestRenderStaysWithinBudgets: a values template that loops stops at its
// budget; a chart that loops is stopped at the render's timeout.
func TestRenderStaysWithinBudgets(t *testing.T) {
	t.Parallel()
	dir := newDriver(t, "loops")
	edit(t, dir, "driver.styrmin.yml", "replicaCount: {{ .Parameters.replicas }}",
		"replicaCount: {{ if eq .Parameters.replicas 7 }}{{ range 100000000 }}{{ end }}{{ end }}{{ .Parameters.replicas }}")
	_, err := authoring.Render(t.Context(), dir, authoring.RenderOptions{Sets: []string{"replicas=7"}})
	var ps drivers.Problems
	require.ErrorAs(t, err, &ps)
	require.Equal(t, 41, ps[0].Line)
	require.Contains(t, ps[0].Message, "range loops run more than 100000 iterations together")

	dir = newDriver(t, "chart-loops")
	// About 10^7 empty iterations: seconds of work, far past the timeout
	// below, at which the render's child process is killed.
	loop := "{{- range until 3000 }}{{ range until 3000 }}{{ end }}{{ end }}\n"
	require.NoError(t, os.WriteFile(filepath.Join(dir, "chart", "templates", "loop.yaml"), []byte(loop), 0o644))
	_, err = authoring.Render(t.Context(), dir, authoring.RenderOptions{Timeout: 200 * time.Millisecond})
	require.ErrorContains(t, err, "did not render within 200ms")
	require.Equal(t, styrmin.EINVALID, styrmin.ErrorCode(err))
}

// TestTheBundledDriversPassTheirTests runs `styrmin driver test`'s code on
// every bundled driver, which ships tests for its actions.
func TestTheBundledDriversPassTheirTests(t *testing.T) {
	t.Parallel()
	for _, name := range bundled.Names() {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			var out bytes.Buffer
			passed, err := authoring.Test(t.Context(), filepath.Join("..", "drivers", "bundled", name), time.Minute, &out)
			require.NoError(t, err)
			require.True(t, passed, out.String())
			require.Regexp(t, `Ran [1-9][0-9]* tests`, out.String())
		})
	}
}

// TestATestsOutputIsBounded: a test that floods its output passes on at most
// actions.MaxTestOutput bytes of it and says how much was left out.
func TestATestsOutputIsBounded(t *testing.T) {
	t.Parallel()
	dir := newDriverWithTest(t, "flood", "import sys\n\nfor _ in range(3 * 1024):\n    sys.stdout.write('x' * 1023 + '\\n')\n")

	var out bytes.Buffer
	passed, err := authoring.Test(t.Context(), dir, time.Minute, &out)
	require.NoError(t, err)
	require.True(t, passed)
	require.Less(t, out.Len(), actions.MaxTestOutput+200)
	require.Regexp(t, `… \d+ more bytes of output left out \(at most 1048576 are shown\)`, out.String())
}

// TestPackageIsReproducibleAndImportsAsTheFolderWould: the same folder packs
// to the same bytes whatever its files' times, without its tests; the
// archive imports as the folder, with the digest Package said.
func TestPackageIsReproducibleAndImportsAsTheFolderWould(t *testing.T) {
	t.Parallel()
	dir := newDriver(t, "my-app")
	first, err := authoring.Package(t.Context(), dir, t.TempDir())
	require.NoError(t, err)
	require.Equal(t, "my-app-1.0.0.tar.gz", filepath.Base(first.Path))

	later := time.Now().Add(time.Hour)
	require.NoError(t, os.Chtimes(filepath.Join(dir, "actions.py"), later, later))
	second, err := authoring.Package(t.Context(), dir, t.TempDir())
	require.NoError(t, err)
	require.Equal(t, first.SHA256, second.SHA256, "the same files pack to the same bytes")
	require.Equal(t, first.Digest, second.Digest)

	archive, err := os.Open(second.Path)
	require.NoError(t, err)
	defer archive.Close()
	fsys, root, err := catalog.Unpack(archive)
	require.NoError(t, err)
	_, err = fs.Stat(fsys, path.Join(root, drivers.TestsDir))
	require.ErrorIs(t, err, fs.ErrNotExist, "the tests stay out of the bundle")
	b, err := drivers.LoadBundle(t.Context(), fsys, root)
	require.NoError(t, err)
	require.Equal(t, first.Digest, b.Digest(), "the catalogue records the digest Package printed")

	edit(t, dir, "README.md", "my-app", "my-app, edited")
	third, err := authoring.Package(t.Context(), dir, t.TempDir())
	require.NoError(t, err)
	require.NotEqual(t, first.Digest, third.Digest, "a change is a new digest")

	edit(t, dir, "driver.styrmin.yml", "version: 1.0.0", "version: one")
	_, err = authoring.Package(t.Context(), dir, t.TempDir())
	require.ErrorContains(t, err, "spec.version", "a driver Styrmin would refuse is not packed")
}
