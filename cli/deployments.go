package cli

import (
	"context"
	"maps"
	"slices"
	"text/tabwriter"

	"github.com/spf13/cobra"

	"github.com/styrmin/styrmin/api/client"
)

func (c *CLI) deploymentsCmd() *cobra.Command {
	cmd := &cobra.Command{Use: "deployments", Short: "List and show deployments"}
	cmd.AddCommand(c.deploymentsListCmd(), c.deploymentsGetCmd())
	return cmd
}

func (c *CLI) deploymentsListCmd() *cobra.Command {
	var deleted bool
	var query, driver, namespace, health, drifted string
	cmd := &cobra.Command{Use: "list", Short: "List the deployments, live ones by name, then deleted ones", Args: cobra.NoArgs}
	out := addOutput(cmd)
	cmd.Flags().BoolVar(&deleted, "include-deleted", false, "list deleted deployments too")
	cmd.Flags().StringVar(&query, "search", "", "only deployments whose name holds this text, whatever its case")
	cmd.Flags().StringVar(&driver, "driver", "", "only deployments of this driver")
	cmd.Flags().StringVar(&namespace, "namespace", "", "only deployments in this namespace")
	cmd.Flags().StringVar(&health, "health", "", "only live deployments of this health (Healthy, Progressing, Degraded, Missing, Stopped, Unknown)")
	cmd.Flags().StringVar(&drifted, "drifted", "", "true: only drifted deployments; false: only the others")
	cmd.RunE = c.run(func(ctx context.Context, api *client.ClientWithResponses, cmd *cobra.Command, _ []string) error {
		params := client.ListDeploymentsParams{IncludeDeleted: &deleted, Q: flagValue(query), Driver: flagValue(driver), Namespace: flagValue(namespace)}
		if health != "" {
			params.Health = (*client.ListDeploymentsParamsHealth)(&health)
		}
		if drifted != "" {
			if drifted != "true" && drifted != "false" {
				return usage("--drifted is true or false, not %q.", drifted)
			}
			isDrifted := drifted == "true"
			params.Drifted = &isDrifted
		}
		items, err := allPages(func(cursor *string) ([]client.DeploymentSummary, string, error) {
			params.Cursor = cursor
			page, err := api.ListDeploymentsWithResponse(ctx, &params)
			if err != nil {
				return nil, "", err
			}
			if page.JSON200 == nil {
				return nil, "", unexpected(page.Status())
			}
			return page.JSON200.Items, page.JSON200.NextCursor, nil
		})
		if err != nil {
			return err
		}
		return out.print(cmd.OutOrStdout(), items, func(t *tabwriter.Writer) {
			row(t, "NAME", "NAMESPACE", "DRIVER", "VERSION", "APP", "STATUS", "LAST TASK")
			for _, d := range items {
				row(t, d.Name, d.Namespace, d.Driver, d.DriverVersion, d.AppVersion, d.Status, lastTask(d.LastTask))
			}
		})
	})
	return cmd
}

// lastTask is a deployment's last task in a table cell.
func lastTask(s *client.TaskSummary) string {
	if s == nil {
		return "-"
	}
	return "#" + itoa(s.Id) + " " + string(s.Kind) + " " + string(s.Status)
}

func (c *CLI) deploymentsGetCmd() *cobra.Command {
	cmd := &cobra.Command{Use: "get NAME", Short: "Show a deployment: parameters, components and revisions", Args: cobra.ExactArgs(1)}
	out := addOutput(cmd)
	cmd.RunE = c.run(func(ctx context.Context, api *client.ClientWithResponses, cmd *cobra.Command, args []string) error {
		r, err := api.GetDeploymentWithResponse(ctx, args[0])
		if err != nil {
			return err
		}
		d := r.JSON200
		if d == nil {
			return unexpected(r.Status())
		}
		return out.print(cmd.OutOrStdout(), d, func(t *tabwriter.Writer) {
			row(t, "Name:", d.Name)
			row(t, "Namespace:", d.Namespace)
			row(t, "Driver:", d.Driver+" "+d.DriverVersion)
			row(t, "App version:", d.AppVersion)
			row(t, "Status:", d.Status)
			row(t, "Last task:", lastTask(d.LastTask))
			for _, name := range slices.Sorted(maps.Keys(d.Parameters)) {
				row(t, "Parameter "+name+":", d.Parameters[name])
			}
			for _, name := range d.SecretsSet {
				row(t, "Secret "+name+":", "(set)")
			}
			for _, name := range slices.Sorted(maps.Keys(d.Components)) {
				cs := d.Components[name]
				state := "running"
				if cs.Stopped {
					state = "stopped"
				}
				if cs.Ready != nil && *cs.Ready != "" {
					state += ", ready " + *cs.Ready
				}
				row(t, "Component "+name+":", state)
			}
			for _, rev := range d.Revisions {
				row(t, "Revision "+itoa(int64(rev.Revision))+":", rev.Status+", driver "+rev.DriverVersion+", app "+rev.AppVersion)
			}
			if d.ClusterError != nil {
				row(t, "Cluster error:", *d.ClusterError)
			}
		})
	})
	return cmd
}

// allPages collects every item of a paginated list: fetch returns a page's
// items and the cursor of the next page, empty after the last.
func allPages[T any](fetch func(cursor *string) ([]T, string, error)) ([]T, error) {
	items := []T{}
	var cursor *string
	for {
		page, next, err := fetch(cursor)
		if err != nil {
			return nil, err
		}
		items = append(items, page...)
		if next == "" {
			return items, nil
		}
		cursor = &next
	}
}

// flagValue is a text flag as an optional parameter: nil when not given.
func flagValue(s string) *string {
	if s == "" {
		return nil
	}
	return &s
}
