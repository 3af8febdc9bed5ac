package web

import (
	"context"
	"io"

	"github.com/a-h/templ"

	"github.com/styrmin/styrmin/lru"
	"github.com/styrmin/styrmin/views"
)

// DriverGridCacheBytes bounds the rendered catalogue grids kept: a grid of
// 1,000 drivers is about 1 MiB.
const DriverGridCacheBytes = 16 << 20

// gridKey names one rendered grid: the catalogue's state, the drivers the
// user's teams may deploy (teams.Drivers.Key: "" for every driver) and the
// filter. The grid is the same for every user with the same teams' rules
// (role-dependent parts are outside it).
type gridKey struct {
	generation   uint64
	teams        string
	query, label string
	page         int
}

// renderedGrid is the catalogue grid for one key, rendered, with what the
// filter form around it shows.
type renderedGrid struct {
	html         []byte
	labelOptions []views.DriverLabel
	total        int
}

// component writes the rendered grid as it is.
func (g renderedGrid) component() templ.Component {
	return templ.ComponentFunc(func(_ context.Context, w io.Writer) error {
		_, err := w.Write(g.html)
		return err
	})
}

// DriverGrids keeps the catalogue grids rendered most recently, by the
// catalogue's state and filter; their slices are shared and read-only.
type DriverGrids = lru.Cache[gridKey, renderedGrid]

// NewDriverGrids returns an empty cache of at most max bytes.
func NewDriverGrids(max int) *DriverGrids {
	return lru.New(max, func(key gridKey, grid renderedGrid) int {
		size := len(grid.html) + len(key.teams) + len(key.query) + len(key.label)
		for _, l := range grid.labelOptions {
			size += len(l.Key) + len(l.Value)
		}
		return size
	})
}
