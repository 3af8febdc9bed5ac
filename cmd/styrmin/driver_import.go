package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"strings"

	"github.com/jackc/pgx/v5/pgxpool"
	"github.com/spf13/cobra"

	"github.com/styrmin/styrmin"
	"github.com/styrmin/styrmin/audit"
	"github.com/styrmin/styrmin/catalog"
	"github.com/styrmin/styrmin/db"
	"github.com/styrmin/styrmin/drivers"
	"github.com/styrmin/styrmin/drivers/bundled"
	"github.com/styrmin/styrmin/release"
)

// openCatalog opens the database at url, migrated first, and its driver
// catalogue; close the pool when done.
func openCatalog(ctx context.Context, url string) (*catalog.Catalog, *pgxpool.Pool, error) {
	pool, err := openDatabase(ctx, url)
	if err != nil {
		return nil, nil, err
	}
	if _, err := db.Migrate(ctx, pool); err != nil {
		pool.Close()
		return nil, nil, err
	}
	return catalog.New(pool, release.ChartFetcher{}), pool, nil
}

func newDriverImportCmd() *cobra.Command {
	var databaseURL string
	cmd := &cobra.Command{
		Use:   "import PATH...",
		Short: "Import driver bundles (folders or .tar.gz archives) into the catalogue",
		Long: "Import driver bundles into the catalogue of the database. PATH is a bundle folder (holding\n" +
			"driver.styrmin.yml) or a .tar.gz archive of one. A version already in the catalogue with the\n" +
			"same content is left as it is; with other content it is refused: raise spec.version instead.",
		Args: cobra.MinimumNArgs(1),
		RunE: func(cmd *cobra.Command, paths []string) error {
			c, pool, err := openCatalog(cmd.Context(), databaseURL)
			if err != nil {
				return err
			}
			defer pool.Close()
			return importPaths(cmd.Context(), c, pool, paths, cmd.OutOrStdout(), cmd.ErrOrStderr())
		},
	}
	addDatabaseFlag(cmd, &databaseURL)
	return cmd
}

// importPaths imports every path into c, on pool, each with its audit
// entry, reporting each result; it goes on after a failure and fails at the
// end when any path failed.
func importPaths(ctx context.Context, c *catalog.Catalog, pool *pgxpool.Pool, paths []string, stdout, stderr io.Writer) error {
	failed := 0
	for _, path := range paths {
		var res catalog.Imported
		err := audited(ctx, pool, audit.ActionDriverUpload, audit.Target{Kind: audit.TargetDriver}, func(ctx context.Context) (err error) {
			audit.Note(ctx, "path", path)
			res, err = c.ImportPath(ctx, path, "styrmin driver import")
			return err
		})
		if err != nil {
			failed++
			fmt.Fprintf(stderr, "%s: %s\n", path, styrmin.ErrorMessage(err))
			var ps drivers.Problems
			if errors.As(err, &ps) {
				fmt.Fprintln(stderr, indent(ps.Error()))
			} else if styrmin.ErrorCode(err) == styrmin.EINTERNAL {
				fmt.Fprintf(stderr, "  %v\n", err)
			}
			continue
		}
		if res.Created {
			fmt.Fprintf(stdout, "imported %s %s\n", res.Name, res.Version)
		} else {
			fmt.Fprintf(stdout, "unchanged %s %s (already in the catalogue with the same content)\n", res.Name, res.Version)
		}
	}
	if failed > 0 {
		return errSilent
	}
	return nil
}

// indent prefixes every line of s with two spaces.
func indent(s string) string {
	return "  " + strings.ReplaceAll(s, "\n", "\n  ")
}

// importDrivers imports, at server start, every bundled driver and every
// bundle folder in dir (STYRMIN_DRIVERS_DIR; none when empty).
func importDrivers(ctx context.Context, c *catalog.Catalog, dir string, logger *slog.Logger) error {
	results, err := c.ImportBundled(ctx, bundled.Bundles(), bundled.Names())
	if err != nil {
		return fmt.Errorf("import bundled drivers: %w", err)
	}
	if dir != "" {
		more, err := c.ImportDir(ctx, dir)
		if err != nil {
			return fmt.Errorf("import drivers from STYRMIN_DRIVERS_DIR: %w", err)
		}
		results = append(results, more...)
	}
	for _, r := range results {
		if r.Created {
			logger.Info("driver imported", "name", r.Name, "version", r.Version)
		}
	}
	logger.Info("driver catalogue ready", "checked", len(results))
	return nil
}
