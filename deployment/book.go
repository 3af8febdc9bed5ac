package deployment

import (
	"maps"
	"slices"
	"strings"
	"sync"
)

// book keeps the newest read of each live deployment (its Health, its
// Drift), by name, for the list, the metric and the viewers that ask again
// soon after.
type book[T any] struct {
	mu     sync.Mutex
	byName map[string]T
}

// newest returns the newest read of name, false when none was read.
func (b *book[T]) newest(name string) (T, bool) {
	b.mu.Lock()
	defer b.mu.Unlock()
	v, ok := b.byName[name]
	return v, ok
}

// put records v as name's newest read.
func (b *book[T]) put(name string, v T) {
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.byName == nil {
		b.byName = map[string]T{}
	}
	b.byName[name] = v
}

// keep forgets the deployments that are not in names.
func (b *book[T]) keep(names map[string]bool) {
	b.mu.Lock()
	defer b.mu.Unlock()
	maps.DeleteFunc(b.byName, func(name string, _ T) bool { return !names[name] })
}

// all returns every deployment's newest read, by name.
func (b *book[T]) all() []T {
	b.mu.Lock()
	defer b.mu.Unlock()
	names := slices.SortedFunc(maps.Keys(b.byName), strings.Compare)
	out := make([]T, len(names))
	for i, name := range names {
		out[i] = b.byName[name]
	}
	return out
}

// namesWhere returns the names whose newest read keep holds, sorted.
func (b *book[T]) namesWhere(keep func(T) bool) []string {
	b.mu.Lock()
	defer b.mu.Unlock()
	var names []string
	for name, v := range b.byName {
		if keep(v) {
			names = append(names, name)
		}
	}
	slices.Sort(names)
	return names
}
