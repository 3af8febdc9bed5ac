package dbtest

import (
	"context"
	"regexp"
	"strings"
	"testing"

	"github.com/jackc/pgx/v5/pgxpool"
)

// checkedValue is one value of a CHECK (column IN (...)) constraint as
// pg_get_constraintdef writes it: 'value'::text, a quote doubled.
var checkedValue = regexp.MustCompile(`'((?:[^']|'')*)'::text`)

// CheckedValues returns the values that the CHECK (column IN (...))
// constraint of table's column allows, as PostgreSQL's catalog holds it after
// the migrations: tests hold the Go constants of a column (its statuses, say)
// to it.
func CheckedValues[T ~string](t testing.TB, pool *pgxpool.Pool, table, column string) []T {
	t.Helper()
	var def string
	err := pool.QueryRow(context.Background(), `SELECT pg_get_constraintdef(c.oid) FROM pg_constraint c
		JOIN pg_attribute a ON a.attrelid = c.conrelid AND a.attnum = c.conkey[1]
		WHERE c.conrelid = $1::regclass AND c.contype = 'c' AND cardinality(c.conkey) = 1 AND a.attname = $2`,
		table, column).Scan(&def)
	if err != nil {
		t.Fatalf("dbtest: the CHECK constraint of %s.%s: %v", table, column, err)
	}
	var values []T
	for _, m := range checkedValue.FindAllStringSubmatch(def, -1) {
		values = append(values, T(strings.ReplaceAll(m[1], "''", "'")))
	}
	if len(values) == 0 {
		t.Fatalf("dbtest: the CHECK constraint of %s.%s lists no values: %s", table, column, def)
	}
	return values
}
