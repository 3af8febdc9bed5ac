package handlers

import (
	"container/list"
	"sync"

	"github.com/styrmin/styrmin/views"
)

// driverPageCacheSize is how many driver versions keep their rendered
// presentation in memory (a version's page is some tens of KiB at most).
const driverPageCacheSize = 256

// driverPages keeps the presentation of the driver versions shown most
// recently (Markdown rendered, spec turned into view props), keyed by content
// digest: a driver version never changes, so neither does its presentation.
// It holds at most max versions and forgets the least recently shown first.
// It is safe for concurrent use.
type driverPages struct {
	mu  sync.Mutex
	max int
	// recent holds *driverPage values, the most recently used at the front.
	recent   *list.List
	byDigest map[string]*list.Element
}

// driverPage is one cached presentation.
type driverPage struct {
	digest string
	props  views.DriverShowProps
}

// newDriverPages returns an empty cache of at most max versions.
func newDriverPages(max int) *driverPages {
	return &driverPages{max: max, recent: list.New(), byDigest: map[string]*list.Element{}}
}

// get returns the presentation of the version with digest, if cached. Its
// slices are shared: set fields of the copy, never modify their elements.
func (p *driverPages) get(digest string) (views.DriverShowProps, bool) {
	p.mu.Lock()
	defer p.mu.Unlock()
	el, ok := p.byDigest[digest]
	if !ok {
		return views.DriverShowProps{}, false
	}
	p.recent.MoveToFront(el)
	return el.Value.(*driverPage).props, true
}

// add caches the presentation of the version with digest, forgetting the
// least recently used one when full.
func (p *driverPages) add(digest string, props views.DriverShowProps) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if el, ok := p.byDigest[digest]; ok {
		el.Value.(*driverPage).props = props
		p.recent.MoveToFront(el)
		return
	}
	p.byDigest[digest] = p.recent.PushFront(&driverPage{digest: digest, props: props})
	if p.recent.Len() > p.max {
		oldest := p.recent.Back()
		p.recent.Remove(oldest)
		delete(p.byDigest, oldest.Value.(*driverPage).digest)
	}
}
