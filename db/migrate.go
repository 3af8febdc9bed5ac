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
	"github.com/riverqueue/river/riverdriver/riverpgxv5"
	"github.com/riverqueue/river/rivermigrate"
)

//go:embed migrations/*.sql
var migrations embed.FS

// MigrationResult names one migration that Migrate applied.
type MigrationResult struct {
	Version int64
	Name    string
}

// riverMigrationLock is the PostgreSQL advisory lock key held while River's
// migrations run, so that several servers starting at once take turns.
const riverMigrationLock = 0x5374_726d_5276 // "StrmRv"

// Migrate applies every pending embedded migration, then the job queue's
// (River's) own. Several servers may call it at once: PostgreSQL advisory
// locks let one of them migrate at a time.
func Migrate(ctx context.Context, pool *pgxpool.Pool) ([]MigrationResult, error) {
	applied, err := migrateSchema(ctx, pool)
	if err != nil {
		return nil, err
	}
	queue, err := migrateQueue(ctx, pool)
	if err != nil {
		return nil, err
	}
	return append(applied, queue...), nil
}

// migrateSchema applies the embedded goose migrations.
func migrateSchema(ctx context.Context, pool *pgxpool.Pool) ([]MigrationResult, error) {
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

// migrateQueue applies River's migrations under an advisory lock.
func migrateQueue(ctx context.Context, pool *pgxpool.Pool) ([]MigrationResult, error) {
	conn, err := pool.Acquire(ctx)
	if err != nil {
		return nil, fmt.Errorf("db: migrate job queue: %w", err)
	}
	defer conn.Release()
	if _, err := conn.Exec(ctx, "SELECT pg_advisory_lock($1)", int64(riverMigrationLock)); err != nil {
		return nil, fmt.Errorf("db: migrate job queue: lock: %w", err)
	}
	defer conn.Exec(context.WithoutCancel(ctx), "SELECT pg_advisory_unlock($1)", int64(riverMigrationLock)) //nolint:errcheck // the lock ends with the session anyway
	migrator, err := rivermigrate.New(riverpgxv5.New(pool), nil)
	if err != nil {
		return nil, fmt.Errorf("db: migrate job queue: %w", err)
	}
	res, err := migrator.Migrate(ctx, rivermigrate.DirectionUp, nil)
	if err != nil {
		return nil, fmt.Errorf("db: migrate job queue: %w", err)
	}
	applied := make([]MigrationResult, 0, len(res.Versions))
	for _, v := range res.Versions {
		applied = append(applied, MigrationResult{Version: int64(v.Version), Name: "river/" + v.Name})
	}
	return applied, nil
}
