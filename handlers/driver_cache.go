package handlers

import (
	"container/list"
	"reflect"
	"sync"

	"github.com/styrmin/styrmin/views"
)

// driverPageCacheBytes bounds the text the driver page cache holds. Driver
// bundles are third-party content (a README alone may be 8 MiB), so the bound
// is on size, not on a count of versions.
const driverPageCacheBytes = 32 << 20

// driverPages keeps the presentation of the driver versions shown most
// recently (Markdown rendered, spec turned into view props), keyed by content
// digest: a driver version never changes, so neither does its presentation.
// It holds at most max bytes of text, forgets the least recently shown first,
// and does not keep a presentation larger than a quarter of max. It is safe
// for concurrent use.
type driverPages struct {
	mu   sync.Mutex
	max  int
	size int
	// recent holds *driverPage values, the most recently used at the front.
	recent   *list.List
	byDigest map[string]*list.Element
}

// driverPage is one cached presentation and its size.
type driverPage struct {
	digest string
	props  views.DriverShowProps
	size   int
}

// newDriverPages returns an empty cache of at most max bytes of text.
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
// least recently used ones until the cache is within its bound.
func (p *driverPages) add(digest string, props views.DriverShowProps) {
	size := textSize(reflect.ValueOf(props))
	if size > p.max/4 {
		return
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	if el, ok := p.byDigest[digest]; ok {
		p.remove(el)
	}
	p.byDigest[digest] = p.recent.PushFront(&driverPage{digest: digest, props: props, size: size})
	p.size += size
	for p.size > p.max {
		p.remove(p.recent.Back())
	}
}

// remove forgets one cached presentation; p.mu is held.
func (p *driverPages) remove(el *list.Element) {
	page := p.recent.Remove(el).(*driverPage)
	delete(p.byDigest, page.digest)
	p.size -= page.size
}

// textSize is the bytes of text in v (strings, in structs and slices at any
// depth) plus a word per value, an estimate of the memory a presentation holds.
func textSize(v reflect.Value) int {
	const word = 8
	switch v.Kind() {
	case reflect.String:
		return v.Len() + 2*word
	case reflect.Struct:
		n := 0
		for i := range v.NumField() {
			n += textSize(v.Field(i))
		}
		return n
	case reflect.Slice:
		n := 3 * word
		for i := range v.Len() {
			n += textSize(v.Index(i))
		}
		return n
	case reflect.Pointer:
		if v.IsNil() {
			return word
		}
		return word + textSize(v.Elem())
	default:
		return word
	}
}
