package web

import (
	"reflect"

	"github.com/styrmin/styrmin/lru"
	"github.com/styrmin/styrmin/views"
)

// DriverPageCacheBytes bounds the text the driver page cache holds. Driver
// bundles are third-party content (a README alone may be 8 MiB), so the bound
// is on size, not on a count of versions.
const DriverPageCacheBytes = 32 << 20

// DriverPages keeps the presentation of the driver versions shown most
// recently (Markdown rendered, spec turned into view props), keyed by content
// digest: a driver version never changes, so neither does its presentation.
// Its slices are shared: set fields of a copy, never modify their elements.
type DriverPages = lru.Cache[string, views.DriverShowProps]

// NewDriverPages returns an empty cache of at most max bytes of text.
func NewDriverPages(max int) *DriverPages {
	return lru.New(max, func(_ string, props views.DriverShowProps) int { return lru.TextSize(reflect.ValueOf(props)) })
}
