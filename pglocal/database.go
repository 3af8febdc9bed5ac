package pglocal

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"

	"github.com/jackc/pgx/v5"
)

// StartDatabase starts the cluster of opts (or reuses the one running in its
// folder), creates database name on it unless it exists, and returns the
// database's URL and stop, which shuts down the server this call started (a
// reused one keeps running).
func StartDatabase(ctx context.Context, opts Options, name string) (url string, stop func() error, err error) {
	c, err := Start(ctx, opts)
	if err != nil {
		return "", nil, err
	}
	if err := ensureDatabase(ctx, c.URL("postgres"), name); err != nil {
		return "", nil, errors.Join(err, c.Stop())
	}
	return c.URL(name), c.Stop, nil
}

// StartTemporary starts a throwaway cluster (Fast) in a new folder of
// tempDir (os.TempDir when empty), creates database name on it, and returns
// the database's URL and stop, which shuts the cluster down and removes the
// folder. On an error nothing is left running or on disk.
func StartTemporary(ctx context.Context, tempDir, name string) (url string, stop func() error, err error) {
	root, err := os.MkdirTemp(tempDir, "styrmin-pg-")
	if err != nil {
		return "", nil, fmt.Errorf("pglocal: %w", err)
	}
	remove := func() error {
		if err := os.RemoveAll(root); err != nil {
			return fmt.Errorf("pglocal: remove %s: %w", root, err)
		}
		return nil
	}
	// The postgres user (when running as root) must be able to enter the folder.
	if err := os.Chmod(root, 0o711); err != nil {
		return "", nil, errors.Join(fmt.Errorf("pglocal: %w", err), remove())
	}
	url, stopServer, err := StartDatabase(ctx, Options{Dir: filepath.Join(root, "data"), Fast: true}, name)
	if err != nil {
		return "", nil, errors.Join(err, remove())
	}
	return url, func() error { return errors.Join(stopServer(), remove()) }, nil
}

// ensureDatabase creates database name on the server of adminURL unless it exists.
func ensureDatabase(ctx context.Context, adminURL, name string) error {
	conn, err := pgx.Connect(ctx, adminURL)
	if err != nil {
		return fmt.Errorf("pglocal: connect to the private PostgreSQL: %w", err)
	}
	defer conn.Close(ctx)
	var exists bool
	if err := conn.QueryRow(ctx, "SELECT EXISTS (SELECT 1 FROM pg_database WHERE datname = $1)", name).Scan(&exists); err != nil {
		return fmt.Errorf("pglocal: look up database %s: %w", name, err)
	}
	if exists {
		return nil
	}
	if _, err := conn.Exec(ctx, "CREATE DATABASE "+pgx.Identifier{name}.Sanitize()); err != nil {
		return fmt.Errorf("pglocal: create database %s: %w", name, err)
	}
	return nil
}
