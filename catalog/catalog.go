// Package catalog keeps the driver catalogue in the database: it imports
// driver bundles (refusing a changed bundle under a version that already
// exists) and reads driver versions back for the pages and for deployments.
package catalog

import (
	"context"
	"sync"

	"github.com/styrmin/styrmin/audit"
	"github.com/styrmin/styrmin/db"
	"github.com/styrmin/styrmin/drivers"
	"github.com/styrmin/styrmin/release"
)

// Catalog is the driver catalogue stored in PostgreSQL.
type Catalog struct {
	conn audit.Conn
	q    *db.Queries
	// charts downloads the remote charts of imported versions.
	charts ChartFetcher

	// mu guards what the catalogue remembers of its content between calls.
	mu sync.Mutex
	// listed is the last List result and the catalogue generation it was built from.
	listed listing
	// built counts the listings built, to number them (Listing.Generation).
	built uint64
	// listening is true while database notifications of catalogue changes
	// are received (ListenOn): then listed and refs are trusted until one
	// arrives, without asking PostgreSQL whether the catalogue changed.
	listening bool
	// epoch counts the notifications; a read that began in an older epoch
	// must not be remembered.
	epoch uint64
	// refs holds each driver's versions, while listening.
	refs map[string][]VersionRef
	// refused are the folders the last ImportDir refused.
	refused []Refusal

	// specs keeps decoded specs by content digest (Spec); it has its own lock.
	specs *specCache
}

// listing is the catalogue's entries as of one generation of its content.
type listing struct {
	generation db.GetDriverCatalogueGenerationRow
	Listing
}

// New returns the catalogue stored in the database behind dbtx (a pool),
// which downloads the remote charts of the versions it imports with charts.
func New(conn audit.Conn, charts ChartFetcher) *Catalog {
	return &Catalog{conn: conn, q: db.New(conn), charts: charts, refs: map[string][]VersionRef{}, specs: newSpecCache(SpecCacheBytes)}
}

// ChartFetcher downloads the remote chart a driver names, reaching addresses
// that are not public only at the allowed hosts (release.ChartFetcher).
type ChartFetcher interface {
	Fetch(ctx context.Context, ref drivers.ChartRef, allowed release.ChartHosts) ([]byte, error)
}

var _ ChartFetcher = release.ChartFetcher{}

var _ db.Subscriber = (*notifications)(nil)

// notifications is how database notifications reach a Catalog.
type notifications Catalog

// ListenOn has l's notifications of catalogue changes reach c, which then
// keeps its listing and the drivers' version lists without asking PostgreSQL
// on every call, and forgets them whenever any server imports a version.
func (c *Catalog) ListenOn(l *db.Listener) {
	l.Subscribe(db.CatalogueChannel, (*notifications)(c))
}

// Listening turns the memory on once notifications are received, and off
// (forgetting everything) when they may be missed.
func (n *notifications) Listening(on bool) {
	c := (*Catalog)(n)
	c.mu.Lock()
	defer c.mu.Unlock()
	c.listening = on
	c.forget()
}

// Notify forgets what the catalogue remembers: its content changed.
func (n *notifications) Notify(string) {
	c := (*Catalog)(n)
	c.mu.Lock()
	defer c.mu.Unlock()
	c.forget()
}

// changed forgets what c remembers after c changed the catalogue: at once
// in this process, without waiting for the notification.
func (c *Catalog) changed() {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.forget()
}

// forget drops what c remembers of the catalogue's content; c.mu is held.
func (c *Catalog) forget() {
	c.epoch++
	c.listed = listing{}
	clear(c.refs)
}
