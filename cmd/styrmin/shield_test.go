package main

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/spf13/cobra"
	"github.com/stretchr/testify/require"
)

// TestASecretIsReadFromItsFile: --NAME-file and NAME_FILE give the value of
// --NAME from a file, its last newline dropped; setting both, or an empty or
// missing file, is a clear error.
func TestASecretIsReadFromItsFile(t *testing.T) {
	dir := t.TempDir()
	file := filepath.Join(dir, "url")
	require.NoError(t, os.WriteFile(file, []byte("postgres://styrmin:pw@db/styrmin\n"), 0o600))
	empty := filepath.Join(dir, "empty")
	require.NoError(t, os.WriteFile(empty, nil, 0o600))
	tests := []struct {
		name, env, envFile string
		args               []string
		want, wantErr      string
	}{
		{name: "flag", args: []string{"--database-url-file", file}, want: "postgres://styrmin:pw@db/styrmin"},
		{name: "variable", envFile: file, want: "postgres://styrmin:pw@db/styrmin"},
		{name: "neither", env: "postgres://from-env", want: "postgres://from-env"},
		{name: "both", env: "postgres://from-env", envFile: file, wantErr: "both --database-url (STYRMIN_DATABASE_URL) and --database-url-file (STYRMIN_DATABASE_URL_FILE) are set"},
		{name: "empty", args: []string{"--database-url-file", empty}, wantErr: "is empty"},
		{name: "missing", args: []string{"--database-url-file", filepath.Join(dir, "none")}, wantErr: "no such file"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Setenv("STYRMIN_DATABASE_URL", tt.env)
			t.Setenv("STYRMIN_DATABASE_URL_FILE", tt.envFile)
			var got string
			cmd := &cobra.Command{Use: "x", RunE: func(*cobra.Command, []string) error { return nil }}
			addDatabaseFlag(cmd, &got)
			cmd.SetArgs(tt.args)
			cmd.SilenceUsage, cmd.SilenceErrors = true, true
			err := cmd.Execute()
			if tt.wantErr != "" {
				require.ErrorContains(t, err, tt.wantErr)
				return
			}
			require.NoError(t, err)
			require.Equal(t, tt.want, got)
		})
	}
}
