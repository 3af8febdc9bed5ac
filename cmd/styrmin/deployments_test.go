package main

import (
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
