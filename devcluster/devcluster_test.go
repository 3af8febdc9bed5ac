package devcluster

import (
	"errors"
	"io"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

// fakeCheckout makes a folder that looks like a Styrmin checkout.
func fakeCheckout(t *testing.T) string {
	t.Helper()
	root := t.TempDir()
	require.NoError(t, os.MkdirAll(filepath.Join(root, "localkube", "cmd"), 0o755))
	require.NoError(t, os.WriteFile(filepath.Join(root, "localkube", "go.mod"), []byte("module x\n"), 0o644))
	return root
}

func TestFindRootWalksUp(t *testing.T) {
	t.Parallel()
	root := fakeCheckout(t)
	got, err := FindRoot(filepath.Join(root, "localkube", "cmd"))
	require.NoError(t, err)
	require.Equal(t, root, got)

	_, err = FindRoot(t.TempDir())
	require.ErrorContains(t, err, "no Styrmin checkout")
	_, err = New(t.TempDir(), io.Discard)
	require.ErrorContains(t, err, "is not a Styrmin checkout")
}

func TestRunningReadsThePidAndReadyFiles(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name    string
		pid     string // "" means no pid file
		ready   string // "" means no ready file
		want    bool
		wantErr string
	}{
		{name: "nothing started"},
		{name: "corrupt pid file", pid: "abc", wantErr: "is corrupt"},
		{name: "pid of a process that is not localkube", pid: strconv.Itoa(os.Getpid()), ready: `{"pid":1}`},
		{name: "dead pid", pid: "999999999", ready: `{"pid":999999999}`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			c, err := New(fakeCheckout(t), io.Discard)
			require.NoError(t, err)
			require.NoError(t, os.MkdirAll(c.Dir(), 0o755))
			if tt.pid != "" {
				require.NoError(t, os.WriteFile(c.pidFile(), []byte(tt.pid), 0o644))
			}
			if tt.ready != "" {
				require.NoError(t, os.WriteFile(c.readyFile(), []byte(tt.ready), 0o644))
			}
			_, running, err := c.Running()
			if tt.wantErr != "" {
				require.ErrorContains(t, err, tt.wantErr)
				return
			}
			require.NoError(t, err)
			require.Equal(t, tt.want, running)
			require.NoError(t, c.Stop(), "stopping a cluster that does not run is fine")
		})
	}
}

func TestSourceStampChangesWithTheSources(t *testing.T) {
	t.Parallel()
	c, err := New(fakeCheckout(t), io.Discard)
	require.NoError(t, err)
	before, err := c.sourceStamp()
	require.NoError(t, err)
	again, err := c.sourceStamp()
	require.NoError(t, err)
	require.Equal(t, before, again)

	require.NoError(t, os.WriteFile(filepath.Join(c.root, "localkube", "cmd", "main_test.go"), []byte("package main\n"), 0o644))
	tests, err := c.sourceStamp()
	require.NoError(t, err)
	require.Equal(t, before, tests, "a test file does not change the binaries")

	require.NoError(t, os.WriteFile(filepath.Join(c.root, "localkube", "cmd", "main.go"), []byte("package main\n"), 0o644))
	after, err := c.sourceStamp()
	require.NoError(t, err)
	require.NotEqual(t, before, after)
}

func TestMissingFilesNamesThePackagesToInstall(t *testing.T) {
	dir := t.TempDir()
	present := filepath.Join(dir, "bridge")
	if err := os.WriteFile(present, nil, 0o755); err != nil {
		t.Fatal(err)
	}
	got := missingFiles(map[string]string{
		"containernetworking-plugins": present,
		"libseccomp-dev":              filepath.Join(dir, "seccomp.h"),
		"iptables":                    filepath.Join(dir, "iptables"),
	})
	if strings.Join(got, " ") != "iptables libseccomp-dev" {
		t.Fatalf("missing %v, want iptables and libseccomp-dev", got)
	}
}

func TestAMachineWithoutContainersFallsBackToTheSimulatedNodeOnlyWhereAllowed(t *testing.T) {
	t.Setenv(NodeEnv, "")
	cannot := func() error { return errors.New("this machine cannot run containers (no overlay filesystem)") }
	newCluster := func(support func() error) (*Cluster, *strings.Builder) {
		var out strings.Builder
		c, err := New(fakeCheckout(t), &out)
		require.NoError(t, err)
		c.support = support
		return c, &out
	}

	// `make test`: this kind of machine must run real pods.
	c, _ := newCluster(cannot)
	err := c.chooseNode()
	require.ErrorContains(t, err, "this machine cannot run containers (no overlay filesystem); the tests need the local cluster's real node")

	// `make run`: one plain sentence, then the simulated node.
	c, out := newCluster(cannot)
	c.AllowSimulated()
	require.NoError(t, c.chooseNode())
	require.Equal(t, NodeSimulated, c.Node())
	require.Equal(t, "devcluster: this machine cannot run containers (no overlay filesystem), so the local cluster's node is simulated: pods report Running but nothing runs in them, and driver actions fail.\n", out.String())

	// A machine that can run containers keeps the real node, silently.
	c, out = newCluster(func() error { return nil })
	c.AllowSimulated()
	require.NoError(t, c.chooseNode())
	require.Equal(t, NodeReal, c.Node())
	require.Empty(t, out.String())

	// Asking for the simulated node never checks the machine.
	t.Setenv(NodeEnv, NodeSimulated)
	c, _ = newCluster(func() error { panic("checked the machine") })
	require.NoError(t, c.chooseNode())
	require.Equal(t, NodeSimulated, c.Node())
}
