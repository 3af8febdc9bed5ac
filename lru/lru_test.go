package lru

import (
	"reflect"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

// page is a presentation of a driver version, as the pages cache them.
type page struct {
	Name   string
	Readme string
}

func TestCacheForgetsTheLeastRecentlyUsed(t *testing.T) {
	t.Parallel()
	// props is a presentation with a README of n bytes; every name is one letter,
	// so presentations with the same n have the same size.
	props := func(name string, n int) page {
		return page{Name: name, Readme: strings.Repeat("x", n)}
	}
	unit := TextSize(reflect.ValueOf(props("a", 1000)))
	tests := []struct {
		name string
		ops  []string // "+d" adds d with a 1,000-byte README, "!d" with a huge one, "?d" reads d
		want []string // cached afterwards
		gone []string // not cached afterwards
	}{
		{name: "within the bound", ops: []string{"+a", "+b", "+c", "+d"}, want: []string{"a", "b", "c", "d"}},
		{name: "the oldest goes first", ops: []string{"+a", "+b", "+c", "+d", "+e"}, want: []string{"b", "c", "d", "e"}, gone: []string{"a"}},
		{name: "a read keeps a version", ops: []string{"+a", "+b", "+c", "+d", "?a", "+e"}, want: []string{"a", "c", "d", "e"}, gone: []string{"b"}},
		{name: "adding again replaces", ops: []string{"+a", "+b", "+c", "+d", "+a", "+e"}, want: []string{"a", "c", "d", "e"}, gone: []string{"b"}},
		{name: "a huge page is not kept", ops: []string{"+a", "!h"}, want: []string{"a"}, gone: []string{"h"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			pages := New(4*unit, func(_ string, props page) int { return TextSize(reflect.ValueOf(props)) })
			for _, op := range tt.ops {
				switch name := op[1:]; op[0] {
				case '+':
					pages.Add(name, props(name, 1000))
				case '!':
					pages.Add(name, props(name, 4*unit))
				default:
					pages.Get(name)
				}
			}
			for _, d := range tt.want {
				got, ok := pages.Get(d)
				require.True(t, ok, "%s is cached", d)
				require.Equal(t, d, got.Name)
			}
			for _, d := range tt.gone {
				_, ok := pages.Get(d)
				require.False(t, ok, "%s is not cached", d)
			}
			require.LessOrEqual(t, pages.size, 4*unit)
			require.Equal(t, len(tt.want)*unit, pages.size, "the size adds up")
			require.Len(t, pages.byKey, pages.recent.Len())
		})
	}
}

func TestCacheCountsHitsAndMisses(t *testing.T) {
	t.Parallel()
	c := New(1<<10, func(k, v string) int { return len(k) + len(v) })
	require.Equal(t, Stats{}, c.Stats())
	_, ok := c.Get("a")
	require.False(t, ok)
	c.Add("a", "x")
	for range 3 {
		_, ok = c.Get("a")
		require.True(t, ok)
	}
	_, ok = c.Get("b")
	require.False(t, ok)
	require.Equal(t, Stats{Hits: 3, Misses: 2}, c.Stats())
}
