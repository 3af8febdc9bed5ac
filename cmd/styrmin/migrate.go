package main

import (
	"context"
	"errors"
	"fmt"
	"os"

	"github.com/jackc/pgx/v5/pgxpool"
	"github.com/spf13/cobra"

	"github.com/styrmin/styrmin/db"
)

func newMigrateCmd() *cobra.Command {
	var databaseURL string
	cmd := &cobra.Command{
		Use:   "migrate",
		Short: "Apply pending database migrations (serve does this at start too)",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			pool, err := openDatabase(cmd.Context(), databaseURL)
			if err != nil {
				return err
			}
			defer pool.Close()
			applied, err := db.Migrate(cmd.Context(), pool)
			if err != nil {
				return err
			}
			for _, m := range applied {
				fmt.Fprintf(cmd.OutOrStdout(), "applied %d %s\n", m.Version, m.Name)
			}
			if len(applied) == 0 {
				fmt.Fprintln(cmd.OutOrStdout(), "database schema is up to date")
			}
			return nil
		},
	}
	addDatabaseFlag(cmd, &databaseURL)
	return cmd
}

// addDatabaseFlag adds --database-url, defaulting to STYRMIN_DATABASE_URL,
// and --database-url-file (STYRMIN_DATABASE_URL_FILE).
func addDatabaseFlag(cmd *cobra.Command, url *string) {
	cmd.Flags().StringVar(url, "database-url", os.Getenv("STYRMIN_DATABASE_URL"),
		"PostgreSQL URL, e.g. postgres://styrmin:secret@localhost:5432/styrmin (env STYRMIN_DATABASE_URL)")
	addSecretFileFlag(cmd, "database-url", "STYRMIN_DATABASE_URL", url)
}

// openDatabase connects to url, explaining what to do when it is not set.
func openDatabase(ctx context.Context, url string) (*pgxpool.Pool, error) {
	if url == "" {
		return nil, errors.New("no database: set STYRMIN_DATABASE_URL or --database-url to a PostgreSQL URL (or --database-url-file to a file holding it) (`make run` starts a private PostgreSQL for you)")
	}
	return db.Open(ctx, url)
}

// envOr returns the environment variable name, or fallback when it is unset or empty.
func envOr(name, fallback string) string {
	if v := os.Getenv(name); v != "" {
		return v
	}
	return fallback
}
