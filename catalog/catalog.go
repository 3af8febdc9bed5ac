// Package catalog keeps the driver catalogue in the database: it imports
// driver bundles (refusing a changed bundle under a version that already
// exists) and reads driver versions back for the pages and for deployments.
package catalog

import (
	"sync"

	"github.com/styrmin/styrmin/db"
)

// Catalog is the driver catalogue stored in PostgreSQL.
type Catalog struct {
	q *db.Queries

	// mu guards listed, the last List result and the catalogue generation it
	// was built from.
	mu     sync.Mutex
	listed listing
}

// listing is the catalogue's entries as of one generation of its content.
type listing struct {
	generation db.GetDriverCatalogueGenerationRow
	entries    []Entry
}

// New returns the catalogue stored in the database behind dbtx (a pool).
func New(dbtx db.DBTX) *Catalog {
	return &Catalog{q: db.New(dbtx)}
}
