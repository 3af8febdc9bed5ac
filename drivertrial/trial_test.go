package drivertrial_test

import (
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/styrmin/styrmin"
	"github.com/styrmin/styrmin/drivertrial"
)

// withoutDefault is a driver folder whose required parameter site_title has no default.
func withoutDefault(t *testing.T) string {
	t.Helper()
	dir := newDriver(t, "trial-req", "")
	p := filepath.Join(dir, "driver.styrmin.yml")
	data, err := os.ReadFile(p)
	require.NoError(t, err)
	const line = "      default: Hello from Styrmin\n"
	require.Contains(t, string(data), line)
	require.NoError(t, os.WriteFile(p, []byte(strings.Replace(string(data), line, "", 1)), 0o644))
	return dir
}

func TestARequiredParameterWithoutDefaultNamesTheSetToGive(t *testing.T) {
	t.Parallel()
	tmp := t.TempDir()
	err := drivertrial.Run(t.Context(), drivertrial.Options{Path: withoutDefault(t), TempDir: tmp, Kubeconfig: "/no/such/kubeconfig"})
	require.Equal(t, styrmin.EINVALID, styrmin.ErrorCode(err), "%v", err)
	require.EqualError(t, err, "The driver has required parameters without a default: give --set site_title=VALUE (or put them in --values FILE).")
	left, err := os.ReadDir(tmp)
	require.NoError(t, err)
	require.Empty(t, left, "nothing was started")
}

func TestBadValuesAreRefusedBeforeAnythingStarts(t *testing.T) {
	t.Parallel()
	dir := withoutDefault(t)
	for _, tc := range []struct {
		sets []string
		want string
	}{
		{[]string{"site_title"}, `--set "site_title" is not NAME=VALUE.`},
		{[]string{"colour=red"}, `The driver has no parameter "colour"; it has site_title, message, theme, show_version, replicas, memory_mib.`},
		{[]string{"site_title=Shop", "replicas=many"}, "--set replicas: "},
	} {
		err := drivertrial.Run(t.Context(), drivertrial.Options{Path: dir, Sets: tc.sets, TempDir: t.TempDir(), Kubeconfig: "/no/such/kubeconfig"})
		require.Equal(t, styrmin.EINVALID, styrmin.ErrorCode(err), "%v", err)
		require.ErrorContains(t, err, tc.want)
	}
}

func TestAKubeconfigThatCannotBeReadStopsTheTrialAndRemovesThePrivateStyrmin(t *testing.T) {
	t.Parallel()
	tmp := shortTempDir(t)
	err := drivertrial.Run(t.Context(), drivertrial.Options{Path: newDriver(t, "trial-nokube", ""), Sets: []string{"site_title=Shop"},
		TempDir: tmp, Kubeconfig: "/no/such/kubeconfig", Out: io.Discard})
	require.ErrorContains(t, err, "/no/such/kubeconfig")
	left, err := os.ReadDir(tmp)
	require.NoError(t, err)
	require.Empty(t, left, "the private PostgreSQL started, and was stopped and removed with its folder")
}
