package db

import (
	"context"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
)

// CustomPlans runs the queries given to it as unnamed statements, which
// PostgreSQL plans for their values on every run. pgx otherwise prepares
// each query once per connection, and after five runs PostgreSQL may keep
// one generic plan for every value: wrong for most runs of a query whose
// optional filters each run sets differently (the audit log's). The
// cost is planning each run; the description of the query is still cached,
// so a run is one round trip.
func CustomPlans(db DBTX) DBTX {
	return customPlans{db}
}

type customPlans struct{ db DBTX }

// unnamed is the mode every query of customPlans is run in.
const unnamed = pgx.QueryExecModeCacheDescribe

func (c customPlans) Exec(ctx context.Context, sql string, args ...any) (pgconn.CommandTag, error) {
	return c.db.Exec(ctx, sql, append([]any{unnamed}, args...)...)
}

func (c customPlans) Query(ctx context.Context, sql string, args ...any) (pgx.Rows, error) {
	return c.db.Query(ctx, sql, append([]any{unnamed}, args...)...)
}

func (c customPlans) QueryRow(ctx context.Context, sql string, args ...any) pgx.Row {
	return c.db.QueryRow(ctx, sql, append([]any{unnamed}, args...)...)
}
