// Command styrmin is the one Styrmin binary: the web server, its database
// migrations, user administration, the driver author's tools and the
// command-line client of a server's REST API.
package main

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/signal"
	"syscall"

	"github.com/spf13/cobra"

	"github.com/styrmin/styrmin/cli"
)

// errSilent marks a failure the command has already reported; main only sets the exit code.
var errSilent = errors.New("failed")

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()

	root := &cobra.Command{
		Use:           "styrmin",
		Short:         "Run third-party applications on Kubernetes through drivers",
		SilenceUsage:  true,
		SilenceErrors: true,
	}
	root.AddCommand(
		newServeCmd(),
		newWorkerCmd(),
		newMigrateCmd(),
		newUserCmd(),
		newTeamCmd(),
		newTokenCmd(),
		newAuditCmd(),
		newSecretsCmd(),
		newDriverCmd(),
		newDocsCmd(),
		newChartSecretCmd(),
		newProbeCmd(),
		newVersionCmd(),
	)
	// The client's commands, which reach a server through its REST API
	// (docs/cli.md); their failures carry their own exit codes.
	root.AddCommand((&cli.CLI{}).Commands()...)
	if err := root.ExecuteContext(ctx); err != nil {
		if !errors.Is(err, errSilent) {
			fmt.Fprintln(os.Stderr, "styrmin:", err)
		}
		os.Exit(cli.ExitCode(err))
	}
}
