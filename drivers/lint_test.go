package drivers

import (
	"flag"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

// update rewrites golden files with the current output.
var update = flag.Bool("update", false, "rewrite the golden files in testdata")

func TestLintGolden(t *testing.T) {
	t.Parallel()
	cases, err := filepath.Glob("testdata/lint/*/" + SpecFile)
	require.NoError(t, err)
	require.NotEmpty(t, cases)
	for _, spec := range cases {
		dir := filepath.Dir(spec)
		t.Run(filepath.Base(dir), func(t *testing.T) {
			t.Parallel()
			ps, err := LintPath(t.Context(), dir)
			require.NoError(t, err)
			require.NotEmpty(t, ps, "every lint fixture is invalid")
			var got strings.Builder
			for _, p := range ps {
				got.WriteString(p.String() + "\n")
			}
			golden := dir + ".golden"
			if *update {
				require.NoError(t, os.WriteFile(golden, []byte(got.String()), 0o644))
			}
			want, err := os.ReadFile(golden)
			require.NoError(t, err, "run go test ./drivers -run TestLintGolden -update to create it")
			require.Equal(t, string(want), got.String())
		})
	}
}

func TestLintGoodBundle(t *testing.T) {
	t.Parallel()
	ps, err := LintPath(t.Context(), "testdata/good")
	require.NoError(t, err)
	require.Empty(t, ps)
}

func TestLintBundledCatalog(t *testing.T) {
	t.Parallel()
	specs, err := filepath.Glob("bundled/*/" + SpecFile)
	require.NoError(t, err)
	require.NotEmpty(t, specs, "drivers/bundled holds no bundles")
	for _, spec := range specs {
		t.Run(filepath.Base(filepath.Dir(spec)), func(t *testing.T) {
			t.Parallel()
			ps, err := LintPath(t.Context(), filepath.Dir(spec))
			require.NoError(t, err)
			require.Empty(t, ps, "problems:\n%v", ps)
		})
	}
}

func TestLintMissingPath(t *testing.T) {
	t.Parallel()
	_, err := LintPath(t.Context(), "testdata/does-not-exist")
	require.ErrorIs(t, err, os.ErrNotExist)
}
