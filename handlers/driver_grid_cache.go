package handlers

import (
	"container/list"
	"context"
	"io"
	"sync"

	"github.com/a-h/templ"

	"github.com/styrmin/styrmin/views"
)

// driverGridCacheBytes bounds the rendered catalogue grids kept: a grid of
// 1,000 drivers is about 1 MiB.
const driverGridCacheBytes = 16 << 20

// gridKey names one rendered grid: the catalogue's state and the filter. The
// grid is the same for every user (role-dependent parts are outside it).
type gridKey struct {
	generation   uint64
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

// driverGrids keeps the catalogue grids rendered most recently, at most max
// bytes of HTML, forgetting the least recently shown first; a grid larger than
// a quarter of max is not kept. It is safe for concurrent use.
type driverGrids struct {
	mu   sync.Mutex
	max  int
	size int
	// recent holds *gridEntry values, the most recently used at the front.
	recent *list.List
	byKey  map[gridKey]*list.Element
}

// gridEntry is one cached grid and its size.
type gridEntry struct {
	key  gridKey
	grid renderedGrid
	size int
}

// newDriverGrids returns an empty cache of at most max bytes.
func newDriverGrids(max int) *driverGrids {
	return &driverGrids{max: max, recent: list.New(), byKey: map[gridKey]*list.Element{}}
}

// get returns the grid for key, if cached; its slices are shared and read-only.
func (g *driverGrids) get(key gridKey) (renderedGrid, bool) {
	g.mu.Lock()
	defer g.mu.Unlock()
	el, ok := g.byKey[key]
	if !ok {
		return renderedGrid{}, false
	}
	g.recent.MoveToFront(el)
	return el.Value.(*gridEntry).grid, true
}

// add caches the grid for key, forgetting the least recently used ones until
// the cache is within its bound.
func (g *driverGrids) add(key gridKey, grid renderedGrid) {
	size := len(grid.html) + len(key.query) + len(key.label)
	for _, l := range grid.labelOptions {
		size += len(l.Key) + len(l.Value)
	}
	if size > g.max/4 {
		return
	}
	g.mu.Lock()
	defer g.mu.Unlock()
	if el, ok := g.byKey[key]; ok {
		g.remove(el)
	}
	g.byKey[key] = g.recent.PushFront(&gridEntry{key: key, grid: grid, size: size})
	g.size += size
	for g.size > g.max {
		g.remove(g.recent.Back())
	}
}

// remove forgets one cached grid; g.mu is held.
func (g *driverGrids) remove(el *list.Element) {
	e := g.recent.Remove(el).(*gridEntry)
	delete(g.byKey, e.key)
	g.size -= e.size
}
