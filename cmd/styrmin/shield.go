package main

import (
	"fmt"
	"os"
	"strings"

	"github.com/spf13/cobra"

	"github.com/styrmin/styrmin/actions"
)

// secretVars are the variables that may hold a secret of serve or worker.
// Each has a _FILE form (a file the server's user alone may read), which keeps
// the secret out of every process's environment.
var secretVars = []string{
	"STYRMIN_DATABASE_URL", "STYRMIN_SESSION_KEY", "STYRMIN_SECRET_KEY",
	"STYRMIN_PREVIOUS_SECRET_KEYS", "STYRMIN_ADMIN_PASSWORD", "STYRMIN_OIDC_CLIENT_SECRET",
}

// shield keeps a server's secrets from the processes it starts once its flags
// are read (actions.ShieldServer): the secret variables leave its environment
// and it is not dumpable.
func shield() error { return actions.ShieldServer(secretVars...) }

// addSecretFileFlag adds --NAME-file (env ENV_FILE), a file holding the value
// of --NAME (env ENV) without its last newline; it is read into value before
// the command runs.
func addSecretFileFlag(cmd *cobra.Command, name, env string, value *string) {
	var file string
	cmd.Flags().StringVar(&file, name+"-file", os.Getenv(env+"_FILE"),
		fmt.Sprintf("file holding --%s instead, so that it is in no process's environment (env %s_FILE)", name, env))
	before := cmd.PreRunE
	cmd.PreRunE = func(c *cobra.Command, args []string) error {
		if before != nil {
			if err := before(c, args); err != nil {
				return err
			}
		}
		if file == "" {
			return nil
		}
		if *value != "" {
			return fmt.Errorf("both --%s (%s) and --%s-file (%s_FILE) are set: keep the file only", name, env, name, env)
		}
		data, err := os.ReadFile(file)
		if err != nil {
			return fmt.Errorf("--%s-file (%s_FILE): %w", name, env, err)
		}
		*value = strings.TrimRight(string(data), "\r\n")
		if *value == "" {
			return fmt.Errorf("--%s-file (%s_FILE): %s is empty", name, env, file)
		}
		return nil
	}
}
