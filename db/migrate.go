package db

import (
	"context"
	"embed"
	"fmt"
	"io/fs"

	"github.com/jackc/pgx/v5/pgxpool"
	"github.com/jackc/pgx/v5/stdlib"
	"github.com/pressly/goose/v3"
	"github.com/pressly/goose/v3/lock"
)

//go:embed migrations/*.sql
var migrations embed.FS

// MigrationResult names one migration that Migrate applied.
type MigrationResult struct {
	Version int64
	Name    string
}

// Migrate applies every pending embedded migration. Several servers may call it
// at once: a PostgreSQL advisory lock lets one of them migrate at a time.
func Migrate(ctx context.Context, pool *pgxpool.Pool) ([]MigrationResult, error) {
	locker, err := lock.NewPostgresSessionLocker()
	if err != nil {
		return nil, fmt.Errorf("db: migration lock: %w", err)
	}
	sqlDB := stdlib.OpenDBFromPool(pool)
	defer sqlDB.Close()
	provider, err := goose.NewProvider(goose.DialectPostgres, sqlDB, Migrations(), goose.WithSessionLocker(locker))
	if err != nil {
		return nil, fmt.Errorf("db: migrations: %w", err)
	}
	results, err := provider.Up(ctx)
	if err != nil {
		return nil, fmt.Errorf("db: migrate: %w", err)
	}
	applied := make([]MigrationResult, 0, len(results))
	for _, r := range results {
		applied = append(applied, MigrationResult{Version: r.Source.Version, Name: r.Source.Path})
	}
	return applied, nil
}

// Migrations returns the embedded migration files, for tools that fingerprint the schema.
func Migrations() fs.FS {
	fsys, err := fs.Sub(migrations, "migrations")
	if err != nil {
		panic(err) // the embedded folder name is fixed at compile time
	}
	return fsys
}
