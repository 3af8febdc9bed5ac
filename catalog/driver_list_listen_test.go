package catalog_test

import (
	"context"
	"io"
	"log/slog"
	"sync/atomic"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
	"github.com/stretchr/testify/require"

	"github.com/styrmin/styrmin/audit"
	"github.com/styrmin/styrmin/catalog"
	"github.com/styrmin/styrmin/db"
	"github.com/styrmin/styrmin/db/dbtest"
	"github.com/styrmin/styrmin/release"
)

// countingDB counts the statements sent to the database.
type countingDB struct {
	audit.Conn
	n atomic.Int64
}

func (c *countingDB) Exec(ctx context.Context, sql string, args ...any) (pgconn.CommandTag, error) {
	c.n.Add(1)
	return c.Conn.Exec(ctx, sql, args...)
}

func (c *countingDB) Query(ctx context.Context, sql string, args ...any) (pgx.Rows, error) {
	c.n.Add(1)
	return c.Conn.Query(ctx, sql, args...)
}

func (c *countingDB) QueryRow(ctx context.Context, sql string, args ...any) pgx.Row {
	c.n.Add(1)
	return c.Conn.QueryRow(ctx, sql, args...)
}

// notified counts notifications; subscribed after the Catalog, it hears of
// each one after the Catalog did.
type notified struct{ n atomic.Int64 }

func (c *notified) Listening(bool) {}
func (c *notified) Notify(string)  { c.n.Add(1) }

// TestListingIsKeptUntilAnImportIsNotified: while notifications arrive, the
// listing and a driver's versions are answered from memory, and an import by
// another process (another Catalog, which the web server's does not hear
// of directly) shows soon after.
func TestListingIsKeptUntilAnImportIsNotified(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	pool := dbtest.New(t)
	queries := &countingDB{Conn: pool}
	web, cli := catalog.New(queries, release.ChartFetcher{}), catalog.New(pool, release.ChartFetcher{})
	l := db.NewListener(pool, slog.New(slog.NewTextHandler(io.Discard, nil)))
	web.ListenOn(l)
	var imports notified
	l.Subscribe(db.CatalogueChannel, &imports)
	listenCtx, stop := context.WithCancel(ctx)
	t.Cleanup(stop)
	go l.Run(listenCtx)
	<-l.Ready()

	_, err := cli.ImportFS(ctx, tinyBundle("1.0.0", ""), "tiny", "alice")
	require.NoError(t, err)
	require.Eventually(t, func() bool { return imports.n.Load() == 1 }, 5*time.Second, 10*time.Millisecond)
	first, err := web.Listing(ctx)
	require.NoError(t, err)
	require.Len(t, first.Entries, 1)
	_, err = web.VersionRefs(ctx, "tiny")
	require.NoError(t, err)
	before := queries.n.Load()
	again, err := web.Listing(ctx)
	require.NoError(t, err)
	require.Equal(t, first, again)
	refs, err := web.VersionRefs(ctx, "tiny")
	require.NoError(t, err)
	require.Len(t, refs, 1)
	require.Equal(t, before, queries.n.Load(), "answered from memory")

	_, err = cli.ImportFS(ctx, tinyBundle("1.1.0", ""), "tiny", "alice")
	require.NoError(t, err)
	require.Eventually(t, func() bool {
		l, err := web.Listing(ctx)
		require.NoError(t, err)
		return l.Entries[0].Version == "1.1.0" && l.Generation != first.Generation
	}, 5*time.Second, 10*time.Millisecond, "the import shows")
	refs, err = web.VersionRefs(ctx, "tiny")
	require.NoError(t, err)
	require.Equal(t, []catalog.VersionRef{{Version: "1.1.0", Digest: refs[0].Digest}, {Version: "1.0.0", Digest: refs[1].Digest}}, refs)
}
