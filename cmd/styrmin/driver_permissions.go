package main

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"slices"

	"github.com/jackc/pgx/v5/pgxpool"
	"github.com/spf13/cobra"

	"github.com/styrmin/styrmin"
	"github.com/styrmin/styrmin/audit"
	"github.com/styrmin/styrmin/catalog"
	"github.com/styrmin/styrmin/permissions"
)

func newDriverPermissionsCmd() *cobra.Command {
	var databaseURL, itemsFile string
	var approve bool
	cmd := &cobra.Command{
		Use:   "permissions NAME VERSION",
		Short: "Show or approve what a driver version's chart creates beyond its namespace",
		Long: "List what the chart of a driver version in the catalogue creates beyond its release's namespace\n" +
			"(cluster-scoped kinds, RBAC rules and bindings, objects in other namespaces, what its pods need\n" +
			"beyond Pod Security's baseline) with its default values, each approved or not, and what was\n" +
			"approved beyond them. With --approve, approve those items for this version; with --approve\n" +
			"--items FILE, approve the items of FILE instead (a JSON object with kinds, rules, aggregations,\n" +
			"bindings, outside and pod_security, as the API's PermissionSet), such as what other values add. The\n" +
			"approval names the command, its user and machine as the approver, in the audit log too.",
		Args: cobra.ExactArgs(2),
		RunE: func(cmd *cobra.Command, args []string) error {
			if itemsFile != "" && !approve {
				return styrmin.Errorf(styrmin.EINVALID, "--items names what to approve: give --approve with it.")
			}
			var items *permissions.Set
			if itemsFile != "" {
				var err error
				if items, err = readItems(itemsFile); err != nil {
					return err
				}
			}
			c, pool, err := openCatalog(cmd.Context(), databaseURL)
			if err != nil {
				return err
			}
			defer pool.Close()
			if !approve {
				return showPermissions(cmd.Context(), c, args[0], args[1], cmd.OutOrStdout())
			}
			return approvePermissions(cmd.Context(), c, pool, args[0], args[1], items, cmd.OutOrStdout())
		},
	}
	addDatabaseFlag(cmd, &databaseURL)
	cmd.Flags().BoolVar(&approve, "approve", false, "approve what the version's chart needs (or the items of --items)")
	cmd.Flags().StringVar(&itemsFile, "items", "", "a JSON file of the items to approve (with --approve)")
	return cmd
}

// readItems reads a file of permission items; unknown fields are refused.
func readItems(path string) (*permissions.Set, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, styrmin.Errorf(styrmin.EINVALID, "Cannot read %s: %v.", path, err)
	}
	defer f.Close()
	dec := json.NewDecoder(f)
	dec.DisallowUnknownFields()
	var s permissions.Set
	if err := dec.Decode(&s); err != nil {
		return nil, styrmin.Errorf(styrmin.EINVALID, "%s does not hold permission items: %v.", path, err)
	}
	return &s, nil
}

// showPermissions prints a version's permissions.
func showPermissions(ctx context.Context, c *catalog.Catalog, name, version string, out io.Writer) error {
	p, err := c.Permissions(ctx, name, version)
	if err != nil {
		return err
	}
	printPermissions(out, name, version, p)
	return nil
}

// approvePermissions approves what a version's chart needs (or items), with
// its audit entry, and prints its permissions.
func approvePermissions(ctx context.Context, c *catalog.Catalog, pool *pgxpool.Pool, name, version string, items *permissions.Set, out io.Writer) error {
	var p *catalog.Permissions
	err := audited(ctx, pool, audit.ActionDriverApprovePermissions, audit.Target{Kind: audit.TargetDriver, Name: name}, func(ctx context.Context) (err error) {
		audit.Note(ctx, "version", version)
		p, err = c.ApprovePermissions(ctx, name, version, commandLineActor().Name, items)
		return err
	})
	if err != nil {
		return err
	}
	printPermissions(out, name, version, p)
	return nil
}

// printPermissions writes a version's permissions, one item a line.
func printPermissions(out io.Writer, name, version string, p *catalog.Permissions) {
	switch {
	case p.RenderError != "":
		fmt.Fprintf(out, "%s %s: the chart did not render with its default values: %s\n", name, version, p.RenderError)
	case p.Needs.Empty():
		fmt.Fprintf(out, "%s %s: the chart creates nothing cluster-scoped or in another namespace, grants no RBAC rule and runs no pod beyond Pod Security's baseline with its default values\n", name, version)
	default:
		fmt.Fprintf(out, "%s %s: with its default values, the chart\n", name, version)
		pending := p.Pending().Lines()
		for _, line := range p.Needs.Lines() {
			mark := "approved    "
			if slices.Contains(pending, line) {
				mark = "NOT APPROVED"
			}
			fmt.Fprintf(out, "  %s  %s\n", mark, line)
		}
	}
	if extra := p.Extra(); !extra.Empty() {
		fmt.Fprintln(out, "approved beyond the default values:")
		for _, line := range extra.Lines() {
			fmt.Fprintf(out, "  %s  %s\n", "approved    ", line)
		}
	}
	if p.Approval != nil {
		fmt.Fprintf(out, "last approved by %s on %s\n", p.Approval.By, p.Approval.At.UTC().Format("2006-01-02 15:04 UTC"))
	}
}
