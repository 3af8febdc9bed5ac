package cli

import (
	"context"
	"strconv"
	"text/tabwriter"
	"time"

	"github.com/spf13/cobra"

	"github.com/styrmin/styrmin/api/client"
)

func (c *CLI) artefactsCmd() *cobra.Command {
	cmd := &cobra.Command{
		Use:   "artefacts NAME",
		Short: "List the artefacts (such as backups) that a deployment's action runs produced, newest first",
		Long: "List what the succeeded runs of the deployment's actions that declare artefacts named in\n" +
			"their results, newest first (the newest 50). Styrmin knows what each run produced, not\n" +
			"whether it is still there: PRUNED BY names the later prune task that listed it as deleted.",
		Args: cobra.ExactArgs(1),
	}
	out := addOutput(cmd)
	cmd.RunE = c.run(func(ctx context.Context, api *client.ClientWithResponses, cmd *cobra.Command, args []string) error {
		r, err := api.ListDeploymentArtefactsWithResponse(ctx, args[0])
		if err != nil {
			return err
		}
		if r.JSON200 == nil {
			return unexpected(r.Status())
		}
		return out.print(cmd.OutOrStdout(), *r.JSON200, func(t *tabwriter.Writer) { artefactsTable(t, *r.JSON200) })
	})
	return cmd
}

// artefactsTable writes artefacts as a table, a row each, the size in bytes
// ("-" when unknown) and the time in local time.
func artefactsTable(t *tabwriter.Writer, a client.Artefacts) {
	row(t, "NAME", "SIZE (BYTES)", "ACTION", "TASK", "BY", "ENDED", "PRUNED BY")
	for _, it := range a.Items {
		size, pruned := "-", "-"
		if it.SizeBytes != nil {
			size = strconv.FormatInt(*it.SizeBytes, 10)
		}
		if it.PrunedBy != nil {
			pruned = strconv.FormatInt(*it.PrunedBy, 10)
		}
		row(t, it.Name, size, it.Action, it.Task, it.By, it.At.In(time.Local).Format(time.RFC3339), pruned)
	}
}
