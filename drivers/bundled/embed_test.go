package bundled_test

import (
	"encoding/xml"
	"io/fs"
	"os"
	"os/exec"
	"path"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/styrmin/styrmin/drivers/bundled"
)

func TestNamesListsEveryBundleFolder(t *testing.T) {
	t.Parallel()
	entries, err := os.ReadDir(".")
	require.NoError(t, err)
	var folders []string
	for _, e := range entries {
		if e.IsDir() && e.Name() != "testdata" && e.Name() != "bundledtest" { // bundledtest is Go, for tests
			folders = append(folders, e.Name())
		}
	}
	require.Equal(t, folders, bundled.Names(), "every folder here is embedded (see the go:embed line)")
	require.Equal(t, []string{"hello-web", "postgresql", "redis"}, bundled.Names())
}

func TestBundlesHoldTheirFiles(t *testing.T) {
	t.Parallel()
	required := []string{
		"driver.styrmin.yml", "icon.svg", "README.md", "actions.py",
		"chart/Chart.yaml", "chart/values.yaml", "chart/templates/_helpers.tpl",
	}
	for _, name := range bundled.Names() {
		for _, file := range required {
			info, err := fs.Stat(bundled.Bundles(), path.Join(name, file))
			require.NoError(t, err, "%s/%s is embedded", name, file)
			require.NotZero(t, info.Size(), "%s/%s", name, file)
		}
	}
}

func TestBundlesLintClean(t *testing.T) {
	t.Parallel()
	for _, name := range bundled.Names() {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			b := loadBundle(t, name)
			require.Equal(t, name, b.Driver.Metadata.Name, "the folder is named after the driver")
			require.NotNil(t, b.Icon)
			require.Equal(t, "icon.svg", b.Icon.Name)
			require.Equal(t, "v2", b.Chart.Metadata.APIVersion)
			require.Equal(t, b.Driver.Spec.Helm.Main.Version, b.Chart.Metadata.Version)
			require.NotEmpty(t, b.Driver.Summary())
			require.True(t, strings.HasPrefix(b.Readme, "# "), "README.md starts with a title")
		})
	}
}

// unsafeSVG matches SVG content a catalogue must not carry: scripts, event
// handlers, foreign objects and references to anything outside the file.
var unsafeSVG = regexp.MustCompile(`(?i)<script|<foreignObject|\son[a-z]+\s*=|href\s*=\s*["'][^#]|url\(\s*["']?[^#'"\s]`)

func TestIconsAreSmallSelfContainedSVG(t *testing.T) {
	t.Parallel()
	seen := map[string]string{}
	for _, name := range bundled.Names() {
		data, err := fs.ReadFile(bundled.Bundles(), path.Join(name, "icon.svg"))
		require.NoError(t, err)
		require.Less(t, len(data), 10<<10, "%s/icon.svg stays under 10 KiB", name)
		require.Empty(t, unsafeSVG.FindString(string(data)), "%s/icon.svg", name)

		var root struct {
			XMLName xml.Name
			ViewBox string `xml:"viewBox,attr"`
		}
		require.NoError(t, xml.Unmarshal(data, &root), "%s/icon.svg is well-formed XML", name)
		require.Equal(t, xml.Name{Space: "http://www.w3.org/2000/svg", Local: "svg"}, root.XMLName)
		require.NotEmpty(t, root.ViewBox, "%s/icon.svg scales (viewBox)", name)

		other, dup := seen[string(data)]
		require.False(t, dup, "%s and %s share an icon", name, other)
		seen[string(data)] = name
	}
}

func TestActionsCompile(t *testing.T) {
	t.Parallel()
	python, err := exec.LookPath("python3")
	require.NoError(t, err, "python3 is needed to run driver actions")
	for _, name := range bundled.Names() {
		source := filepath.Join(name, "actions.py")
		// cfile keeps __pycache__ out of the bundle folder, which is embedded.
		out, err := exec.Command(python, "-c",
			"import py_compile, sys; py_compile.compile(sys.argv[1], cfile=sys.argv[2], doraise=True)",
			source, filepath.Join(t.TempDir(), name+".pyc")).CombinedOutput()
		require.NoError(t, err, "%s: %s", source, out)
	}
}
