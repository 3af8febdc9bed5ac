// Package catalog keeps the driver catalogue in the database: it imports
// driver bundles (refusing a changed bundle under a version that already
// exists) and reads driver versions back for the pages and for deployments.
package catalog

import (
	"github.com/styrmin/styrmin/db"
)

// Catalog is the driver catalogue stored in PostgreSQL.
type Catalog struct {
	q *db.Queries
}

// New returns the catalogue stored in the database behind dbtx (a pool).
func New(dbtx db.DBTX) *Catalog {
	return &Catalog{q: db.New(dbtx)}
}
