package httpx

import (
	"container/list"
	"sync"
)

// LRU keeps values by key up to max bytes in all (as sizeOf counts them),
// forgetting the least recently used first; a value larger than a quarter of
// max is not kept. It is safe for concurrent use. Values are shared between
// callers: treat them as read-only.
type LRU[K comparable, V any] struct {
	sizeOf func(K, V) int
	mu     sync.Mutex
	max    int
	size   int
	// recent holds *lruEntry values, the most recently used at the front.
	recent *list.List
	byKey  map[K]*list.Element
}

// lruEntry is one kept value and its size.
type lruEntry[K comparable, V any] struct {
	key   K
	value V
	size  int
}

// NewLRU returns an empty cache of at most max bytes.
func NewLRU[K comparable, V any](max int, sizeOf func(K, V) int) *LRU[K, V] {
	return &LRU[K, V]{sizeOf: sizeOf, max: max, recent: list.New(), byKey: map[K]*list.Element{}}
}

// Get returns the value kept for key, if any.
func (c *LRU[K, V]) Get(key K) (V, bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	el, ok := c.byKey[key]
	if !ok {
		var zero V
		return zero, false
	}
	c.recent.MoveToFront(el)
	return el.Value.(*lruEntry[K, V]).value, true
}

// Add keeps value for key, forgetting the least recently used values until
// the cache is within its bound.
func (c *LRU[K, V]) Add(key K, value V) {
	size := c.sizeOf(key, value)
	if size > c.max/4 {
		return
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if el, ok := c.byKey[key]; ok {
		c.remove(el)
	}
	c.byKey[key] = c.recent.PushFront(&lruEntry[K, V]{key: key, value: value, size: size})
	c.size += size
	for c.size > c.max {
		c.remove(c.recent.Back())
	}
}

// remove forgets one value; c.mu is held.
func (c *LRU[K, V]) remove(el *list.Element) {
	e := c.recent.Remove(el).(*lruEntry[K, V])
	delete(c.byKey, e.key)
	c.size -= e.size
}
