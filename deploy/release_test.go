package deploy_test

import (
	"os"
	"os/exec"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/require"
)

func TestReleaseRefusesAVersionThatIsNotSemantic(t *testing.T) {
	t.Parallel()
	for _, v := range []string{"v1.0.0", "1.0", "1.0.0-", "1.0.0 rc", "../../etc", "1.0.0\n../../x"} {
		dist := t.TempDir()
		cmd := exec.Command(filepath.Join("..", "scripts", "release"), v)
		cmd.Env = append(os.Environ(), "DIST="+dist)
		out, err := cmd.CombinedOutput()
		require.Error(t, err, v)
		require.Contains(t, string(out), "release: version '"+v+"' is not a semantic version such as 1.2.3 or 1.2.3-rc.1", v)
		entries, err := os.ReadDir(dist)
		require.NoError(t, err)
		require.Empty(t, entries, "nothing is built for %q", v)
	}
}
