package main

import (
	"fmt"
	"os"

	"github.com/spf13/cobra"

	"github.com/styrmin/styrmin/api"
	"github.com/styrmin/styrmin/drivers"
)

// newDocsCmd groups the generators of the reference documentation.
func newDocsCmd() *cobra.Command {
	cmd := &cobra.Command{
		Use:   "docs",
		Short: "Generate reference documentation",
	}
	cmd.AddCommand(newDocsDriverAPICmd(), newDocsOpenAPICmd())
	return cmd
}

// newDocsDriverAPICmd is `styrmin docs driver-api`.
func newDocsDriverAPICmd() *cobra.Command {
	var out string
	cmd := &cobra.Command{
		Use:   "driver-api",
		Short: "Write the Driver API reference (Markdown) generated from the driver types",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			ref, err := drivers.Reference()
			if err != nil {
				return err
			}
			if out == "" {
				_, err = cmd.OutOrStdout().Write(ref)
				return err
			}
			if err := os.WriteFile(out, ref, 0o644); err != nil {
				return fmt.Errorf("docs driver-api: %w", err)
			}
			return nil
		},
	}
	cmd.Flags().StringVar(&out, "out", "", "file to write (default: standard output)")
	return cmd
}

// newDocsOpenAPICmd is `styrmin docs openapi`.
func newDocsOpenAPICmd() *cobra.Command {
	var out string
	cmd := &cobra.Command{
		Use:   "openapi",
		Short: "Write the REST API's OpenAPI document (JSON), as the server serves it at /api/v1/openapi.json",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			doc, err := api.DocumentJSON()
			if err != nil {
				return err
			}
			if out == "" {
				_, err = cmd.OutOrStdout().Write(doc)
				return err
			}
			if err := os.WriteFile(out, doc, 0o644); err != nil {
				return fmt.Errorf("docs openapi: %w", err)
			}
			return nil
		},
	}
	cmd.Flags().StringVar(&out, "out", "", "file to write (default: standard output)")
	return cmd
}
