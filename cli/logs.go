package cli

import (
	"context"
	"io"
	"time"

	"github.com/spf13/cobra"

	"github.com/styrmin/styrmin/api/client"
)

// logsCmd prints a container's last lines and, with -f, the lines after
// them, asking the server for the lines after its cursor every poll.
func (c *CLI) logsCmd() *cobra.Command {
	cmd := &cobra.Command{Use: "logs DEPLOYMENT POD", Short: "Print the last lines of a container of a deployment's pod, secrets redacted; -f follows it",
		Args: cobra.ExactArgs(2)}
	container := cmd.Flags().StringP("container", "c", "", "the pod's container (default: its first)")
	follow := cmd.Flags().BoolP("follow", "f", false, "keep printing the lines written after them until interrupted")
	previous := cmd.Flags().BoolP("previous", "p", false, "the log of the container's previous run (after a crash)")
	tail := cmd.Flags().Int("tail", 200, "how many of the last lines to print (1 to 2000)")
	cmd.RunE = c.run(func(ctx context.Context, api *client.ClientWithResponses, cmd *cobra.Command, args []string) error {
		params := &client.GetPodLogsParams{TailLines: tail, Previous: previous}
		if *container != "" {
			params.Container = container
		}
		tick := time.NewTicker(c.poll())
		defer tick.Stop()
		for {
			if err := printLogLines(ctx, api, cmd.OutOrStdout(), args[0], args[1], params); err != nil || !*follow {
				return err
			}
			select {
			case <-ctx.Done():
				return nil
			case <-tick.C:
			}
		}
	})
	return cmd
}

// printLogLines prints the lines params ask for and moves params.Since to
// the newest printed.
func printLogLines(ctx context.Context, api *client.ClientWithResponses, w io.Writer, deployment, pod string, params *client.GetPodLogsParams) error {
	r, err := api.GetPodLogsWithResponse(ctx, deployment, pod, params)
	if err != nil {
		return err
	}
	if r.StatusCode() != 200 {
		return unexpected(r.Status())
	}
	if _, err := w.Write(r.Body); err != nil {
		return err
	}
	if cursor := r.HTTPResponse.Header.Get("Styrmin-Log-Cursor"); cursor != "" {
		since, err := time.Parse(time.RFC3339Nano, cursor)
		if err != nil {
			return unexpected(r.Status() + " with a cursor " + cursor)
		}
		params.Since = &since
	}
	return nil
}
