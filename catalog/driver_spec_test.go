package catalog_test

import (
	"context"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/jackc/pgx/v5"
	"github.com/stretchr/testify/require"

	"github.com/styrmin/styrmin"
	"github.com/styrmin/styrmin/audit"
	"github.com/styrmin/styrmin/catalog"
	"github.com/styrmin/styrmin/db/dbtest"
	"github.com/styrmin/styrmin/release"
)

// specReadsDB counts the reads of a stored driver version (its spec, which
// the catalogue then decodes).
type specReadsDB struct {
	audit.Conn
	n atomic.Int64
}

func (c *specReadsDB) QueryRow(ctx context.Context, sql string, args ...any) pgx.Row {
	if strings.HasPrefix(sql, "-- name: GetDriverVersion :one") {
		c.n.Add(1)
	}
	return c.Conn.QueryRow(ctx, sql, args...)
}

// TestSpecDecodesEachDigestOnce: a driver version's spec is read and decoded
// once per content digest, not per call, whatever else is imported; other
// content under the same version is read again; a missing driver or version
// is ENOTFOUND, which Absent turns into no spec.
func TestSpecDecodesEachDigestOnce(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	pool := dbtest.New(t)
	reads := &specReadsDB{Conn: pool}
	cat := catalog.New(reads, release.ChartFetcher{})
	_, err := cat.ImportFS(ctx, tinyBundle("1.0.0", ""), "tiny", "alice")
	require.NoError(t, err)

	first, err := cat.Spec(ctx, "tiny", "1.0.0")
	require.NoError(t, err)
	require.Equal(t, "1.0.0", first.Driver.Spec.Version)
	require.NotEmpty(t, first.Digest)
	for range 3 {
		again, err := cat.Spec(ctx, "tiny", "1.0.0")
		require.NoError(t, err)
		require.Same(t, first.Driver, again.Driver, "the decoded spec is shared")
	}
	require.EqualValues(t, 1, reads.n.Load(), "the spec of a digest is read and decoded once")

	_, err = cat.ImportFS(ctx, tinyBundle("1.0.1", ""), "tiny", "alice")
	require.NoError(t, err)
	again, err := cat.Spec(ctx, "tiny", "1.0.0")
	require.NoError(t, err)
	require.Same(t, first.Driver, again.Driver, "another version changes nothing of this one")
	newer, err := cat.Spec(ctx, "tiny", "1.0.1")
	require.NoError(t, err)
	require.Equal(t, "1.0.1", newer.Driver.Spec.Version)
	require.EqualValues(t, 2, reads.n.Load())

	_, err = pool.Exec(ctx, `UPDATE driver_versions SET digest = $1 WHERE name = 'tiny' AND version = '1.0.0'`, "sha256:"+strings.Repeat("0", 64))
	require.NoError(t, err)
	edited, err := cat.Spec(ctx, "tiny", "1.0.0")
	require.NoError(t, err)
	require.NotSame(t, first.Driver, edited.Driver, "other content under the same version is other content")
	require.EqualValues(t, 3, reads.n.Load())

	for _, missing := range [][2]string{{"tiny", "9.9.9"}, {"nothing", "1.0.0"}} {
		_, err := cat.Spec(ctx, missing[0], missing[1])
		require.Equal(t, styrmin.ENOTFOUND, styrmin.ErrorCode(err), "%v: %v", missing, err)
		spec, err := catalog.Absent(cat.Spec(ctx, missing[0], missing[1]))
		require.NoError(t, err)
		require.Nil(t, spec.Driver, "%v has no spec", missing)
	}
}
