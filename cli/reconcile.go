package cli

import (
	"context"
	"fmt"
	"text/tabwriter"

	"github.com/spf13/cobra"

	"github.com/styrmin/styrmin/api/client"
)

func (c *CLI) reconcileCmd() *cobra.Command {
	cmd := &cobra.Command{
		Use:   "reconcile NAME",
		Short: "Re-apply a deployment's release as it is, undoing changes made behind Styrmin's back",
		Args:  cobra.ExactArgs(1),
	}
	ch := addChange(cmd)
	cmd.RunE = c.run(func(ctx context.Context, api *client.ClientWithResponses, cmd *cobra.Command, args []string) error {
		r, err := api.ReconcileDeploymentWithResponse(ctx, args[0])
		if err != nil {
			return err
		}
		return c.queued(ctx, api, cmd, ch, r.JSON202, r.Status())
	})
	return cmd
}

func (c *CLI) acceptDriftCmd() *cobra.Command {
	cmd := &cobra.Command{
		Use:   "accept-drift NAME",
		Short: "Accept how a deployment's objects differ from its release now: it reads Synced until they change again",
		Args:  cobra.ExactArgs(1),
	}
	out := addOutput(cmd)
	cmd.RunE = c.run(func(ctx context.Context, api *client.ClientWithResponses, cmd *cobra.Command, args []string) error {
		r, err := api.AcceptDeploymentDriftWithResponse(ctx, args[0])
		if err != nil {
			return err
		}
		if r.JSON200 == nil {
			return unexpected(r.Status())
		}
		dr := r.JSON200
		return out.print(cmd.OutOrStdout(), dr, func(tw *tabwriter.Writer) {
			fmt.Fprintf(tw, "%s: %s, %d accepted differences\n", args[0], dr.Word, len(dr.Accepted))
			for _, o := range dr.Accepted {
				fmt.Fprintf(tw, "  %s/%s\t%s\t%d fields\n", o.Kind, o.Name, o.Change, len(o.Fields)+o.FieldsLeftOut)
			}
		})
	})
	return cmd
}
