package handlers

import (
	"context"
	"net/http"
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
	tests := []struct {
		name string
		adds []string // "+digest" adds, "?digest" reads
		want []string // cached afterwards
		gone []string // not cached afterwards
	}{
		{name: "under the bound", adds: []string{"+a", "+b"}, want: []string{"a", "b"}},
		{name: "oldest goes first", adds: []string{"+a", "+b", "+c", "+d"}, want: []string{"b", "c", "d"}, gone: []string{"a"}},
		{name: "a read keeps a version", adds: []string{"+a", "+b", "+c", "?a", "+d"}, want: []string{"a", "c", "d"}, gone: []string{"b"}},
		{name: "adding again replaces", adds: []string{"+a", "+b", "+c", "+a", "+d"}, want: []string{"a", "c", "d"}, gone: []string{"b"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			pages := newDriverPages(3)
			for _, op := range tt.adds {
				if op[0] == '+' {
					pages.add(op[1:], views.DriverShowProps{Name: op[1:]})
				} else {
					pages.get(op[1:])
				}
			}
			for _, d := range tt.want {
				props, ok := pages.get(d)
				require.True(t, ok, "%s is cached", d)
				require.Equal(t, d, props.Name)
			}
			for _, d := range tt.gone {
				_, ok := pages.get(d)
				require.False(t, ok, "%s is forgotten", d)
			}
			require.LessOrEqual(t, pages.recent.Len(), 3)
			require.Len(t, pages.byDigest, pages.recent.Len())
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
