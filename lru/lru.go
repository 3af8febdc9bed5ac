// Package lru is a bounded, least-recently-used cache of values that never
// change once made (pages, forms, decoded driver specs), sized by the text
// they hold.
package lru

import (
	"container/list"
	"reflect"
	"sync"
)

// Cache keeps values by key up to max bytes in all (as sizeOf counts them),
// forgetting the least recently used first; a value larger than a quarter of
// max is not kept. It is safe for concurrent use. Values are shared between
// callers: treat them as read-only.
type Cache[K comparable, V any] struct {
	sizeOf func(K, V) int
	mu     sync.Mutex
	max    int
	size   int
	// recent holds *entry values, the most recently used at the front.
	recent *list.List
	byKey  map[K]*list.Element
	// stats counts the lookups since the cache was made.
	stats Stats
}

// Stats are a cache's lookups since it was made: Hits found a value, Misses
// did not (the caller then made the value, and usually added it).
type Stats struct {
	Hits, Misses uint64
}

// entry is one kept value and its size.
type entry[K comparable, V any] struct {
	key   K
	value V
	size  int
}

// New returns an empty cache of at most max bytes.
func New[K comparable, V any](max int, sizeOf func(K, V) int) *Cache[K, V] {
	return &Cache[K, V]{sizeOf: sizeOf, max: max, recent: list.New(), byKey: map[K]*list.Element{}}
}

// Get returns the value kept for key, if any.
func (c *Cache[K, V]) Get(key K) (V, bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	el, ok := c.byKey[key]
	if !ok {
		c.stats.Misses++
		var zero V
		return zero, false
	}
	c.stats.Hits++
	c.recent.MoveToFront(el)
	return el.Value.(*entry[K, V]).value, true
}

// Stats returns the cache's lookups so far.
func (c *Cache[K, V]) Stats() Stats {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.stats
}

// Add keeps value for key, forgetting the least recently used values until
// the cache is within its bound.
func (c *Cache[K, V]) Add(key K, value V) {
	size := c.sizeOf(key, value)
	if size > c.max/4 {
		return
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if el, ok := c.byKey[key]; ok {
		c.remove(el)
	}
	c.byKey[key] = c.recent.PushFront(&entry[K, V]{key: key, value: value, size: size})
	c.size += size
	for c.size > c.max {
		c.remove(c.recent.Back())
	}
}

// remove forgets one value; c.mu is held.
func (c *Cache[K, V]) remove(el *list.Element) {
	e := c.recent.Remove(el).(*entry[K, V])
	delete(c.byKey, e.key)
	c.size -= e.size
}

// TextSize is the bytes of text in v (strings, in structs, slices, maps and
// interfaces at any depth) plus a word per value, an estimate of the memory
// a presentation or a decoded spec holds.
func TextSize(v reflect.Value) int {
	const word = 8
	switch v.Kind() {
	case reflect.String:
		return v.Len() + 2*word
	case reflect.Struct:
		n := 0
		for i := range v.NumField() {
			n += TextSize(v.Field(i))
		}
		return n
	case reflect.Slice:
		n := 3 * word
		for i := range v.Len() {
			n += TextSize(v.Index(i))
		}
		return n
	case reflect.Map:
		n := 6 * word
		for iter := v.MapRange(); iter.Next(); {
			n += TextSize(iter.Key()) + TextSize(iter.Value())
		}
		return n
	case reflect.Pointer, reflect.Interface:
		if v.IsNil() {
			return word
		}
		return word + TextSize(v.Elem())
	default:
		return word
	}
}
