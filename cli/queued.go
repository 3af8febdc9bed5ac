package cli

import (
	"context"
	"fmt"
	"text/tabwriter"

	"github.com/spf13/cobra"

	"github.com/styrmin/styrmin/api/client"
)

// change is a command that queues a task: its --output and --wait.
type change struct {
	out  *outputFormat
	wait *bool
}

// addChange gives cmd the flags of a command that queues a task.
func addChange(cmd *cobra.Command) change {
	ch := change{out: addOutput(cmd), wait: new(bool)}
	cmd.Flags().BoolVarP(ch.wait, "wait", "w", false, "follow the task until it ends (exit 5 when it fails)")
	return ch
}

// queued reports a queued task, as its output says, and with --wait follows
// it to its end; a change the server answered without a task is unexpected.
func (c *CLI) queued(ctx context.Context, api *client.ClientWithResponses, cmd *cobra.Command, ch change, accepted *client.TaskAccepted, status string) error {
	if accepted == nil {
		return unexpected(status)
	}
	t := accepted.Task
	if *ch.wait {
		fmt.Fprintf(cmd.ErrOrStderr(), "Queued %s of %s as task %d.\n", t.Kind, t.Deployment, t.Id)
		return c.followAndPrint(ctx, api, cmd, ch.out, t.Id, false)
	}
	return ch.out.print(cmd.OutOrStdout(), accepted, func(tw *tabwriter.Writer) {
		fmt.Fprintf(tw, "Queued %s of %s as task %d: styrmin tasks wait %d\n", t.Kind, t.Deployment, t.Id, t.Id)
	})
}
