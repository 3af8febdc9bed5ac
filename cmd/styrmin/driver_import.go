package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"strings"
	"time"

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
// bundle folder in dir (STYRMIN_DRIVERS_DIR; none when empty); a folder that
// cannot be imported is logged and left out (catalog.Catalog.Refused).
func importDrivers(ctx context.Context, c *catalog.Catalog, dir string, changes catalog.FolderChanges, logger *slog.Logger) error {
	results, err := c.ImportBundled(ctx, bundled.Bundles(), bundled.Names())
	if err != nil {
		return fmt.Errorf("import bundled drivers: %w", err)
	}
	if dir != "" {
		more, err := c.ImportDir(ctx, dir, changes)
		if err != nil {
			return fmt.Errorf("import drivers from STYRMIN_DRIVERS_DIR: %w", err)
		}
		results = append(results, more...)
		logRefused(c, logger)
	}
	logImported(results, logger)
	logger.Info("driver catalogue ready", "checked", len(results))
	return nil
}

// folderChanges is what the server does with a folder of its drivers
// folder whose version the catalogue holds with other content.
func folderChanges(cfg serveConfig) catalog.FolderChanges {
	if cfg.driversDev {
		return catalog.ImportDevBuilds
	}
	return catalog.RefuseChanges
}

// watchDrivers imports the drivers folder again whenever it changes, with
// --drivers-dev, until ctx ends; the channel closes when it has stopped.
func watchDrivers(ctx context.Context, c *catalog.Catalog, cfg serveConfig, logger *slog.Logger) <-chan struct{} {
	done := make(chan struct{})
	if !cfg.driversDev || cfg.driversDir == "" {
		close(done)
		return done
	}
	logger.Info("watching the drivers folder: a changed folder is imported as a development build", "folder", cfg.driversDir)
	go func() {
		defer close(done)
		c.WatchDir(ctx, cfg.driversDir, catalog.ImportDevBuilds, driversWatchPeriod, func(results []catalog.Imported, err error) {
			if err != nil {
				logger.Error("import the changed drivers folder", "err", err)
				return
			}
			logRefused(c, logger)
			logImported(results, logger)
		})
	}()
	return done
}

// driversWatchPeriod is how often --drivers-dev looks at the drivers folder.
const driversWatchPeriod = 2 * time.Second

// logRefused logs every folder the catalogue's last folder import refused.
func logRefused(c *catalog.Catalog, logger *slog.Logger) {
	for _, r := range c.Refused() {
		logger.Warn("driver folder refused; the catalogue page says why", "folder", r.Folder, "reason", r.Reason)
	}
}

// logImported logs every driver version results newly imported.
func logImported(results []catalog.Imported, logger *slog.Logger) {
	for _, r := range results {
		if r.Created {
			logger.Info("driver imported", "name", r.Name, "version", r.Version)
		}
	}
}
