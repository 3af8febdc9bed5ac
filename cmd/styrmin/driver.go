package main

import (
	"context"
	"encoding/json"
	"fmt"
	"io"

	"github.com/spf13/cobra"

	"github.com/styrmin/styrmin/drivers"
)

// newDriverCmd groups the driver author's tools; add a subcommand by listing it here.
func newDriverCmd() *cobra.Command {
	cmd := &cobra.Command{
		Use:   "driver",
		Short: "Create, render, test, package, check, describe and import driver bundles; show and approve their permissions",
	}
	cmd.AddCommand(
		newDriverNewCmd(),
		newDriverRenderCmd(),
		newDriverTestCmd(),
		newDriverPackageCmd(),
		newDriverPushCmd(),
		newDriverSignCmd(),
		newDriverSignBlobCmd(),
		newDriverKeygenCmd(),
		newDriverLintCmd(),
		newDriverSchemaCmd(),
		newDriverImportCmd(),
		newDriverPermissionsCmd(),
	)
	return cmd
}

// newDriverLintCmd is `styrmin driver lint`.
func newDriverLintCmd() *cobra.Command {
	var asJSON bool
	cmd := &cobra.Command{
		Use:   "lint PATH...",
		Short: "Check driver bundles against the driver.styrmin.yml contract",
		Long: "Check driver bundles offline: the spec, the icon, the local chart, the action functions and\n" +
			"the values template. PATH is a bundle folder or its driver.styrmin.yml. Prints one problem\n" +
			"per line as PATH:LINE:COL: FIELD: message and exits with 1 when there is any.",
		Args: cobra.MinimumNArgs(1),
		RunE: func(cmd *cobra.Command, paths []string) error {
			return lintPaths(cmd.Context(), paths, asJSON, cmd.OutOrStdout(), cmd.ErrOrStderr())
		},
	}
	cmd.Flags().BoolVar(&asJSON, "json", false, "print the problems as a JSON array of {file, line, column, field, message}")
	return cmd
}

// lintPaths lints every path, writes the problems to out and failures to check
// to errOut, and returns errSilent when there was any.
func lintPaths(ctx context.Context, paths []string, asJSON bool, out, errOut io.Writer) error {
	all := drivers.Problems{}
	failed := false
	for _, p := range paths {
		ps, err := drivers.LintPath(ctx, p)
		if err != nil {
			failed = true
			fmt.Fprintln(errOut, err)
			continue
		}
		all = append(all, ps...)
	}
	if asJSON {
		enc := json.NewEncoder(out)
		enc.SetIndent("", "  ")
		if err := enc.Encode(all); err != nil {
			return fmt.Errorf("driver lint: %w", err)
		}
	} else {
		for _, p := range all {
			fmt.Fprintln(out, p.String())
		}
	}
	if failed || len(all) > 0 {
		return errSilent
	}
	return nil
}

// newDriverSchemaCmd is `styrmin driver schema`.
func newDriverSchemaCmd() *cobra.Command {
	return &cobra.Command{
		Use:   "schema",
		Short: "Print the JSON Schema (2020-12) of driver.styrmin.yml",
		Long: "Print the JSON Schema (2020-12) of driver.styrmin.yml, for editors such as VS Code with\n" +
			"yaml-language-server. The same schema is committed as docs/driver.schema.json.",
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			schema, err := drivers.Schema()
			if err != nil {
				return err
			}
			_, err = cmd.OutOrStdout().Write(schema)
			return err
		},
	}
}
