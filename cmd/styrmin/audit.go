package main

import (
	"encoding/json"
	"fmt"

	"github.com/spf13/cobra"

	"github.com/styrmin/styrmin/audit"
)

func newAuditCmd() *cobra.Command {
	cmd := &cobra.Command{
		Use:   "audit",
		Short: "Read the audit log: who changed what, and who signed in",
	}
	cmd.AddCommand(newAuditExportCmd())
	return cmd
}

func newAuditExportCmd() *cobra.Command {
	var databaseURL, since, until string
	cmd := &cobra.Command{
		Use:   "export [--since TIME] [--until TIME]",
		Short: "Write the audit log's entries to stdout as JSON lines, newest first",
		Long: "Write every audit log entry recorded since --since and before --until (RFC 3339 times or dates,\n" +
			"2026-12-01; both optional) to stdout, one JSON object a line, newest first.",
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			var f audit.Filter
			var err error
			if f.Since, err = audit.ParseTime(since); err != nil {
				return fmt.Errorf("--since: %w", err)
			}
			if f.Until, err = audit.ParseTime(until); err != nil {
				return fmt.Errorf("--until: %w", err)
			}
			pool, err := openDatabase(cmd.Context(), databaseURL)
			if err != nil {
				return err
			}
			defer pool.Close()
			enc := json.NewEncoder(cmd.OutOrStdout())
			// Whoever reaches the database reads everything: the command line is an admin.
			return audit.NewStore(pool).Each(cmd.Context(), audit.Viewer{Admin: true}, f, func(e audit.Entry) error {
				return enc.Encode(e)
			})
		},
	}
	addDatabaseFlag(cmd, &databaseURL)
	cmd.Flags().StringVar(&since, "since", "", "the earliest time to export (RFC 3339 or a date, 2026-12-01)")
	cmd.Flags().StringVar(&until, "until", "", "the time to export up to, excluded (RFC 3339 or a date)")
	return cmd
}
