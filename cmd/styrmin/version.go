package main

import (
	"encoding/json"
	"fmt"

	"github.com/spf13/cobra"

	"github.com/styrmin/styrmin/version"
)

// newVersionCmd is `styrmin version`.
func newVersionCmd() *cobra.Command {
	var output string
	cmd := &cobra.Command{
		Use:   "version",
		Short: "Print this build's version, source revision, Go version and build date",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			b := version.Get()
			switch output {
			case "text":
				_, err := fmt.Fprintf(cmd.OutOrStdout(), "styrmin %s (revision %s, %s, built %s)\n",
					b.Version, orUnknown(b.Revision), b.GoVersion, orUnknown(b.BuildDate))
				return err
			case "json":
				enc := json.NewEncoder(cmd.OutOrStdout())
				enc.SetIndent("", "  ")
				return enc.Encode(b)
			default:
				return fmt.Errorf("version: --output %q is neither text nor json", output)
			}
		},
	}
	cmd.Flags().StringVarP(&output, "output", "o", "text", "text or json")
	return cmd
}

// orUnknown is s, or "unknown" when it is empty.
func orUnknown(s string) string {
	if s == "" {
		return "unknown"
	}
	return s
}
