package handlers

import (
	"reflect"

	"github.com/styrmin/styrmin/drivers"
	"github.com/styrmin/styrmin/views"
)

// driverPageCacheBytes bounds the text the driver page cache holds. Driver
// bundles are third-party content (a README alone may be 8 MiB), so the bound
// is on size, not on a count of versions.
const driverPageCacheBytes = 32 << 20

// driverPages keeps the presentation of the driver versions shown most
// recently (Markdown rendered, spec turned into view props), keyed by content
// digest: a driver version never changes, so neither does its presentation.
// Its slices are shared: set fields of a copy, never modify their elements.
type driverPages = lru[string, views.DriverShowProps]

// newDriverPages returns an empty cache of at most max bytes of text.
func newDriverPages(max int) *driverPages {
	return newLRU(max, func(_ string, props views.DriverShowProps) int { return textSize(reflect.ValueOf(props)) })
}

// driverSpecCacheBytes bounds the decoded specs the deployment pages keep.
const driverSpecCacheBytes = 16 << 20

// driverSpec is a driver version as a deployment's page shows it: its decoded
// spec, whether it has an icon and the forms of its manual actions.
type driverSpec struct {
	Driver  *drivers.Driver
	HasIcon bool
	// ManualActions are the forms of its manual actions, their prompts at
	// their defaults, Markdown rendered.
	ManualActions []views.ManualAction
}

// driverSpecs keeps the decoded specs of the driver versions that deployment
// pages showed most recently, keyed by content digest: a driver version
// never changes, so its spec is decoded once, not on every request. The
// specs are shared: read them, never modify them.
type driverSpecs = lru[string, driverSpec]

// newDriverSpecs returns an empty cache of at most max bytes of decoded specs.
func newDriverSpecs(max int) *driverSpecs {
	return newLRU(max, func(_ string, s driverSpec) int { return textSize(reflect.ValueOf(s)) })
}

// textSize is the bytes of text in v (strings, in structs, slices, maps and
// interfaces at any depth) plus a word per value, an estimate of the memory
// a presentation or a decoded spec holds.
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
	case reflect.Map:
		n := 6 * word
		for iter := v.MapRange(); iter.Next(); {
			n += textSize(iter.Key()) + textSize(iter.Value())
		}
		return n
	case reflect.Pointer, reflect.Interface:
		if v.IsNil() {
			return word
		}
		return word + textSize(v.Elem())
	default:
		return word
	}
}
