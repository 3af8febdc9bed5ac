package cli

import (
	"context"

	"github.com/spf13/cobra"

	"github.com/styrmin/styrmin/api/client"
)

func (c *CLI) rollbackCmd() *cobra.Command {
	var revision int
	cmd := &cobra.Command{
		Use:   "rollback NAME --revision N",
		Short: "Roll a deployment back to an earlier revision with the values recorded for it",
		Args:  cobra.ExactArgs(1),
	}
	ch := addChange(cmd)
	cmd.Flags().IntVar(&revision, "revision", 0, "the revision to go back to (styrmin deployments get NAME lists them)")
	cmd.RunE = c.run(func(ctx context.Context, api *client.ClientWithResponses, cmd *cobra.Command, args []string) error {
		if revision < 1 {
			return usage("Give --revision N, the revision to go back to (from 1; styrmin deployments get %s lists them).", args[0])
		}
		r, err := api.RollbackDeploymentWithResponse(ctx, args[0], client.RollbackRequest{Revision: revision})
		if err != nil {
			return err
		}
		return c.queued(ctx, api, cmd, ch, r.JSON202, r.Status())
	})
	return cmd
}

func (c *CLI) stopCmd() *cobra.Command {
	return c.componentsCmd("stop", "Stop a deployment's components (scale them to zero), remembering their replicas",
		func(ctx context.Context, api *client.ClientWithResponses, name string, req client.ComponentsRequest) (*client.TaskAccepted, string, error) {
			r, err := api.StopDeploymentWithResponse(ctx, name, req)
			if err != nil {
				return nil, "", err
			}
			return r.JSON202, r.Status(), nil
		})
}

func (c *CLI) startCmd() *cobra.Command {
	return c.componentsCmd("start", "Start a deployment's stopped components with the replicas they had",
		func(ctx context.Context, api *client.ClientWithResponses, name string, req client.ComponentsRequest) (*client.TaskAccepted, string, error) {
			r, err := api.StartDeploymentWithResponse(ctx, name, req)
			if err != nil {
				return nil, "", err
			}
			return r.JSON202, r.Status(), nil
		})
}

// componentsCall queues a change of a deployment's components.
type componentsCall func(ctx context.Context, api *client.ClientWithResponses, name string, req client.ComponentsRequest) (*client.TaskAccepted, string, error)

// componentsCmd is stop or start: NAME and --component.
func (c *CLI) componentsCmd(use, short string, queue componentsCall) *cobra.Command {
	var components []string
	cmd := &cobra.Command{Use: use + " NAME", Short: short, Args: cobra.ExactArgs(1)}
	ch := addChange(cmd)
	cmd.Flags().StringArrayVar(&components, "component", nil, "a component (repeatable; default: all)")
	cmd.RunE = c.run(func(ctx context.Context, api *client.ClientWithResponses, cmd *cobra.Command, args []string) error {
		req := client.ComponentsRequest{}
		if len(components) > 0 {
			req.Components = &components
		}
		accepted, status, err := queue(ctx, api, args[0], req)
		if err != nil {
			return err
		}
		return c.queued(ctx, api, cmd, ch, accepted, status)
	})
	return cmd
}

func (c *CLI) deleteCmd() *cobra.Command {
	cmd := &cobra.Command{
		Use:   "delete NAME",
		Short: "Uninstall a deployment and delete what Styrmin created for it",
		Args:  cobra.ExactArgs(1),
	}
	ch := addChange(cmd)
	cmd.RunE = c.run(func(ctx context.Context, api *client.ClientWithResponses, cmd *cobra.Command, args []string) error {
		r, err := api.DeleteDeploymentWithResponse(ctx, args[0], client.DeleteRequest{})
		if err != nil {
			return err
		}
		return c.queued(ctx, api, cmd, ch, r.JSON202, r.Status())
	})
	return cmd
}

func (c *CLI) runActionCmd() *cobra.Command {
	cmd := &cobra.Command{
		Use:   "run-action NAME ACTION",
		Short: "Run a manual action of a deployment's driver with its prompts",
		Args:  cobra.ExactArgs(2),
	}
	prompts := addParameters(cmd, "prompt value")
	ch := addChange(cmd)
	cmd.RunE = c.run(func(ctx context.Context, api *client.ClientWithResponses, cmd *cobra.Command, args []string) error {
		values, err := prompts.read()
		if err != nil {
			return err
		}
		r, err := api.RunActionWithResponse(ctx, args[0], args[1], client.ActionRequest{Prompts: &values})
		if err != nil {
			return err
		}
		return c.queued(ctx, api, cmd, ch, r.JSON202, r.Status())
	})
	return cmd
}
