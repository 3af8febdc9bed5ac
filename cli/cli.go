package cli

import (
	"context"
	"net/http"
	"os"
	"time"

	"github.com/spf13/cobra"

	"github.com/styrmin/styrmin/api/client"
)

// CLI is the command-line client's setup.
type CLI struct {
	// ConfigDir holds the login; empty is os.UserConfigDir()/styrmin.
	ConfigDir string
	// Getenv reads STYRMIN_URL and STYRMIN_TOKEN; nil is os.Getenv.
	Getenv func(string) string
	// HTTP sends the requests; nil is a client with a one-minute timeout.
	HTTP *http.Client
	// Poll is how often a followed task is read again; 0 is a second.
	Poll time.Duration
}

// Commands returns the client's commands, for the styrmin binary's root.
func (c *CLI) Commands() []*cobra.Command {
	cmds := []*cobra.Command{
		c.loginCmd(), c.deploymentsCmd(), c.deployCmd(), c.upgradeCmd(), c.rollbackCmd(),
		c.stopCmd(), c.startCmd(), c.reconcileCmd(), c.acceptDriftCmd(), c.deleteCmd(), c.runActionCmd(), c.schedulesCmd(), c.artefactsCmd(), c.tasksCmd(), c.logsCmd(), c.driversCmd(), c.sourcesCmd(), c.teamsCmd(), c.whoamiCmd(),
	}
	for _, cmd := range cmds {
		markUsage(cmd)
	}
	return cmds
}

// markUsage makes cmd's and its subcommands' flag and argument errors
// usage Errors (ExitUsage).
func markUsage(cmd *cobra.Command) {
	cmd.SetFlagErrorFunc(func(_ *cobra.Command, err error) error { return usage("%v", err) })
	if args := cmd.Args; args != nil {
		cmd.Args = func(cmd *cobra.Command, a []string) error {
			if err := args(cmd, a); err != nil {
				return usage("%v; see %s --help", err, cmd.CommandPath())
			}
			return nil
		}
	}
	for _, sub := range cmd.Commands() {
		markUsage(sub)
	}
}

// getenv reads an environment variable through c.Getenv.
func (c *CLI) getenv(name string) string {
	if c.Getenv != nil {
		return c.Getenv(name)
	}
	return os.Getenv(name)
}

// httpClient is c.HTTP or the default one.
func (c *CLI) httpClient() *http.Client {
	if c.HTTP != nil {
		return c.HTTP
	}
	return &http.Client{Timeout: time.Minute}
}

// poll is how often a followed task is read.
func (c *CLI) poll() time.Duration {
	if c.Poll > 0 {
		return c.Poll
	}
	return time.Second
}

// api is the REST API's client with the resolved login.
func (c *CLI) api() (*client.ClientWithResponses, error) {
	path, err := configPath(c.ConfigDir)
	if err != nil {
		return nil, err
	}
	l, err := resolveLogin(path, c.getenv)
	if err != nil {
		return nil, err
	}
	return newClient(l, c.httpClient())
}

// call is a command's body that needs the API.
type call func(ctx context.Context, api *client.ClientWithResponses, cmd *cobra.Command, args []string) error

// run turns a call into a cobra RunE with the API's client.
func (c *CLI) run(f call) func(cmd *cobra.Command, args []string) error {
	return func(cmd *cobra.Command, args []string) error {
		api, err := c.api()
		if err != nil {
			return err
		}
		return f(cmd.Context(), api, cmd, args)
	}
}
