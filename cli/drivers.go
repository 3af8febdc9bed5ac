package cli

import (
	"cmp"
	"context"
	"os"
	"strings"
	"text/tabwriter"

	"github.com/spf13/cobra"

	"github.com/styrmin/styrmin/api/client"
)

func (c *CLI) driversCmd() *cobra.Command {
	cmd := &cobra.Command{Use: "drivers", Short: "List, show and upload drivers of the catalogue"}
	cmd.AddCommand(c.driversListCmd(), c.driversGetCmd(), c.driversUploadCmd())
	return cmd
}

func (c *CLI) driversListCmd() *cobra.Command {
	var query string
	cmd := &cobra.Command{Use: "list", Short: "List the catalogue's drivers with their newest version", Args: cobra.NoArgs}
	out := addOutput(cmd)
	cmd.Flags().StringVarP(&query, "query", "q", "", "words to look for in names, titles, summaries and labels")
	cmd.RunE = c.run(func(ctx context.Context, api *client.ClientWithResponses, cmd *cobra.Command, _ []string) error {
		var q *string
		if query != "" {
			q = &query
		}
		items, err := allPages(func(cursor *string) ([]client.DriverSummary, string, error) {
			page, err := api.ListDriversWithResponse(ctx, &client.ListDriversParams{Q: q, Cursor: cursor})
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
			row(t, "NAME", "VERSION", "VERSIONS", "TITLE")
			for _, d := range items {
				row(t, d.Name, d.Version, d.Versions, d.Title)
			}
		})
	})
	return cmd
}

func (c *CLI) driversGetCmd() *cobra.Command {
	var version string
	cmd := &cobra.Command{
		Use:   "get NAME [--version V]",
		Short: "Show a driver with its versions, or one version with its driver.styrmin.yml",
		Args:  cobra.ExactArgs(1),
	}
	out := addOutput(cmd)
	cmd.Flags().StringVar(&version, "version", "", "one version, with its parsed driver.styrmin.yml and permissions")
	cmd.RunE = c.run(func(ctx context.Context, api *client.ClientWithResponses, cmd *cobra.Command, args []string) error {
		if version != "" {
			r, err := api.GetDriverVersionWithResponse(ctx, args[0], version)
			if err != nil {
				return err
			}
			if r.JSON200 == nil {
				return unexpected(r.Status())
			}
			return out.print(cmd.OutOrStdout(), r.JSON200, func(t *tabwriter.Writer) { driverVersionTable(t, r.JSON200) })
		}
		r, err := api.GetDriverWithResponse(ctx, args[0])
		if err != nil {
			return err
		}
		d := r.JSON200
		if d == nil {
			return unexpected(r.Status())
		}
		return out.print(cmd.OutOrStdout(), d, func(t *tabwriter.Writer) {
			row(t, "Name:", d.Name)
			row(t, "Title:", d.Title)
			row(t, "Summary:", d.Summary)
			row(t, "Versions:", strings.Join(d.Versions, ", "))
		})
	})
	return cmd
}

// driverVersionTable writes a driver version's table.
func driverVersionTable(t *tabwriter.Writer, v *client.DriverVersion) {
	row(t, "Name:", v.Name)
	row(t, "Version:", v.Version)
	row(t, "Digest:", v.Digest)
	row(t, "Imported:", v.CreatedAt.Format("2006-01-02 15:04:05 MST")+" by "+v.CreatedBy)
	if v.Source != "" {
		row(t, "Source:", v.Source+", "+cmp.Or(prefixed("signed by ", v.SignedBy), "unsigned"))
	}
	if v.Permissions != nil {
		for _, item := range v.Permissions.Items {
			state := "not approved"
			if item.Approved {
				state = "approved"
			}
			row(t, "Needs:", item.Text+" ("+state+")")
		}
	}
}

func (c *CLI) driversUploadCmd() *cobra.Command {
	cmd := &cobra.Command{
		Use:   "upload ARCHIVE",
		Short: "Import a driver bundle archive (.tar.gz) into the catalogue (admins)",
		Long: "Upload a gzip-compressed tar archive of a driver bundle (tar -czf driver.tar.gz -C FOLDER .),\n" +
			"at most 16 MiB, and print the version imported. A bundle that breaks the driver contract is\n" +
			"refused with every problem and its line (styrmin driver lint finds them before uploading).",
		Args: cobra.ExactArgs(1),
	}
	out := addOutput(cmd)
	cmd.RunE = c.run(func(ctx context.Context, api *client.ClientWithResponses, cmd *cobra.Command, args []string) error {
		f, err := os.Open(args[0])
		if err != nil {
			return usage("Cannot read the archive: %v.", err)
		}
		defer f.Close()
		r, err := api.UploadDriverWithBodyWithResponse(ctx, "application/octet-stream", f)
		if err != nil {
			return err
		}
		v := r.JSON201
		verb := "Imported"
		if v == nil {
			v, verb = r.JSON200, "Unchanged (already in the catalogue with the same content):"
		}
		if v == nil {
			return unexpected(r.Status())
		}
		return out.print(cmd.OutOrStdout(), v, func(t *tabwriter.Writer) {
			row(t, verb, v.Name+" "+v.Version)
		})
	})
	return cmd
}

// prefixed is prefix+s, or "" when s is.
func prefixed(prefix, s string) string {
	if s == "" {
		return ""
	}
	return prefix + s
}
