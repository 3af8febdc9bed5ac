package handlers

import (
	"context"
	"net/http"
	"reflect"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/styrmin/styrmin/auth"
	"github.com/styrmin/styrmin/catalog"
	bundled "github.com/styrmin/styrmin/drivers/catalog"
	"github.com/styrmin/styrmin/views"
)

func TestDriverPagesForgetsTheLeastRecentlyShown(t *testing.T) {
	t.Parallel()
	// props is a presentation with a README of n bytes; every name is one letter,
	// so presentations with the same n have the same size.
	props := func(name string, n int) views.DriverShowProps {
		return views.DriverShowProps{Name: name, Readme: views.SafeHTML(strings.Repeat("x", n))}
	}
	unit := textSize(reflect.ValueOf(props("a", 1000)))
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
			pages := newDriverPages(4 * unit)
			for _, op := range tt.ops {
				switch name := op[1:]; op[0] {
				case '+':
					pages.add(name, props(name, 1000))
				case '!':
					pages.add(name, props(name, 4*unit))
				default:
					pages.get(name)
				}
			}
			for _, d := range tt.want {
				got, ok := pages.get(d)
				require.True(t, ok, "%s is cached", d)
				require.Equal(t, d, got.Name)
			}
			for _, d := range tt.gone {
				_, ok := pages.get(d)
				require.False(t, ok, "%s is not cached", d)
			}
			require.LessOrEqual(t, pages.size, 4*unit)
			require.Equal(t, len(tt.want)*unit, pages.size, "the size adds up")
			require.Len(t, pages.byKey, pages.recent.Len())
		})
	}
}

// countingCatalog counts how often a driver version is read and presented.
type countingCatalog struct {
	DriverCatalog
	gets atomic.Int64
}

func (c *countingCatalog) Get(ctx context.Context, name, version string) (*catalog.Version, error) {
	c.gets.Add(1)
	return c.DriverCatalog.Get(ctx, name, version)
}

// TestDriverPageIsBuiltOncePerVersion: a driver version never changes, so its
// stored spec is read, parsed and its Markdown rendered once, not per request.
func TestDriverPageIsBuiltOncePerVersion(t *testing.T) {
	t.Parallel()
	a := setup(t)
	cat := a.deps.Drivers.(*catalog.Catalog)
	_, err := cat.ImportBundled(context.Background(), bundled.Bundles(), []string{"hello-web"})
	require.NoError(t, err)
	counting := &countingCatalog{DriverCatalog: cat}
	a.deps.Drivers = counting
	a.e = New(a.deps)
	reader, _ := a.as(t, "reader", auth.ReadOnly)

	var first string
	for range 3 {
		rec := a.request(reader, http.MethodGet, "/drivers/hello-web", nil)
		require.Equal(t, http.StatusOK, rec.Code)
		doc := parse(t, rec)
		require.Equal(t, "Hello Web", text(doc.Find("h1").First()))
		body, err := doc.Find("main").Html()
		require.NoError(t, err)
		if first == "" {
			first = body
		}
		require.Equal(t, first, body, "the cached page is the page")
	}
	require.EqualValues(t, 1, counting.gets.Load(), "the version was read and presented once")

	rec := a.request(reader, http.MethodGet, "/drivers/hello-web?version=9.9.9", nil)
	require.Equal(t, http.StatusNotFound, rec.Code, "an unknown version is still not found")
}
