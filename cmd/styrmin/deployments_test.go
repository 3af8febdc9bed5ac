package main

import (
	"crypto/x509"
	"encoding/pem"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/spf13/cobra"
	"github.com/stretchr/testify/require"
)

// deployConfigOf parses args as the deployment flags of serve and worker do.
func deployConfigOf(t *testing.T, args ...string) deployConfig {
	t.Helper()
	var cfg deployConfig
	cmd := &cobra.Command{}
	addDeployFlags(cmd, &cfg)
	require.NoError(t, cmd.ParseFlags(args))
	return cfg
}

func TestTaskRetentionKeepsEverythingUnlessSet(t *testing.T) {
	t.Parallel()
	for args, want := range map[string]time.Duration{"": 0, "--task-retention=365d": 365 * 24 * time.Hour, "--task-retention=36h": 36 * time.Hour} {
		var flags []string
		if args != "" {
			flags = append(flags, args)
		}
		cfg, err := deployConfigOf(t, flags...).appConfig(nil, nil, true)
		require.NoError(t, err, args)
		require.Equal(t, want, cfg.TaskRetention, args)
	}
	_, err := deployConfigOf(t, "--task-retention=forever").appConfig(nil, nil, true)
	require.ErrorContains(t, err, "--task-retention")
}

func TestARegistryCAFileIsTrustedBesidesTheSystemsAndAFileWithoutOneIsRefused(t *testing.T) {
	t.Parallel()
	cfg, err := deployConfigOf(t).appConfig(nil, nil, true)
	require.NoError(t, err)
	require.Nil(t, cfg.RegistryCAs, "without the flag, the system's authorities alone")

	srv := httptest.NewTLSServer(http.NotFoundHandler())
	t.Cleanup(srv.Close)
	caFile := filepath.Join(t.TempDir(), "ca.pem")
	require.NoError(t, os.WriteFile(caFile, pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: srv.Certificate().Raw}), 0o600))
	cfg, err = deployConfigOf(t, "--registry-ca-file", caFile).appConfig(nil, nil, true)
	require.NoError(t, err)
	_, err = srv.Certificate().Verify(x509.VerifyOptions{Roots: cfg.RegistryCAs})
	require.NoError(t, err, "the registry's certificate verifies")

	notPEM := filepath.Join(t.TempDir(), "ca.der")
	require.NoError(t, os.WriteFile(notPEM, srv.Certificate().Raw, 0o600))
	_, err = deployConfigOf(t, "--registry-ca-file", notPEM).appConfig(nil, nil, true)
	require.ErrorContains(t, err, "no PEM certificate in it")
	_, err = deployConfigOf(t, "--registry-ca-file", filepath.Join(t.TempDir(), "missing.pem")).appConfig(nil, nil, true)
	require.ErrorContains(t, err, "--registry-ca-file")
}
