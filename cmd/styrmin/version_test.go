package main

import (
	"bytes"
	"encoding/json"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/styrmin/styrmin/version"
)

// runVersionCmd runs `styrmin version ARGS...` and returns its output and result.
func runVersionCmd(t *testing.T, args ...string) (string, error) {
	t.Helper()
	cmd := newVersionCmd()
	var out bytes.Buffer
	cmd.SetOut(&out)
	cmd.SetErr(&out)
	cmd.SilenceUsage, cmd.SilenceErrors = true, true // as the root command does
	cmd.SetArgs(args)
	err := cmd.Execute()
	return out.String(), err
}

func TestVersionPrintsTheBuild(t *testing.T) {
	t.Parallel()
	b := version.Get()

	out, err := runVersionCmd(t)
	require.NoError(t, err)
	require.Contains(t, out, "styrmin "+b.Version+" ")
	require.Contains(t, out, b.GoVersion)

	out, err = runVersionCmd(t, "--output", "json")
	require.NoError(t, err)
	var got version.Info
	require.NoError(t, json.Unmarshal([]byte(out), &got))
	require.Equal(t, b, got)

	_, err = runVersionCmd(t, "--output", "yaml")
	require.EqualError(t, err, `version: --output "yaml" is neither text nor json`)
}
