package web_test

import (
	"context"
	"net/http"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/styrmin/styrmin/handlers"
	"github.com/styrmin/styrmin/handlers/handlerstest"
	"github.com/styrmin/styrmin/handlers/web"

	"github.com/stretchr/testify/require"

	"github.com/styrmin/styrmin/auth"
	"github.com/styrmin/styrmin/catalog"
	"github.com/styrmin/styrmin/drivers"
	"github.com/styrmin/styrmin/drivers/bundled"
)

// countingCatalog counts how often a driver version is read and presented,
// and which decoded specs its Spec returned.
type countingCatalog struct {
	web.DriverCatalog
	gets atomic.Int64

	mu sync.Mutex
	// decoded holds each distinct decoded spec Spec returned.
	decoded map[*drivers.Driver]bool
}

func (c *countingCatalog) Get(ctx context.Context, name, version string) (*catalog.Version, error) {
	c.gets.Add(1)
	return c.DriverCatalog.Get(ctx, name, version)
}

func (c *countingCatalog) Spec(ctx context.Context, name, version string) (catalog.Spec, error) {
	s, err := c.DriverCatalog.Spec(ctx, name, version)
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.decoded == nil {
		c.decoded = map[*drivers.Driver]bool{}
	}
	if s.Driver != nil {
		c.decoded[s.Driver] = true
	}
	return s, err
}

// decodings is how many distinct decoded specs Spec returned.
func (c *countingCatalog) decodings() int {
	c.mu.Lock()
	defer c.mu.Unlock()
	return len(c.decoded)
}

// TestDriverPageIsBuiltOncePerVersion: a driver version never changes, so its
// stored spec is read, parsed and its Markdown rendered once, not per request.
func TestDriverPageIsBuiltOncePerVersion(t *testing.T) {
	t.Parallel()
	a := handlerstest.Setup(t)
	cat := a.Catalog
	_, err := cat.ImportBundled(context.Background(), bundled.Bundles(), []string{"hello-web"})
	require.NoError(t, err)
	counting := &countingCatalog{DriverCatalog: cat}
	a.Deps.Drivers = counting
	a.Echo = handlers.New(a.Deps)
	reader, _ := a.As(t, "reader", auth.ReadOnly)

	var first string
	for range 3 {
		rec := a.Request(reader, http.MethodGet, "/drivers/hello-web", nil)
		require.Equal(t, http.StatusOK, rec.Code)
		doc := handlerstest.Parse(t, rec)
		require.Equal(t, "Hello Web", handlerstest.Text(doc.Find("h1").First()))
		body, err := doc.Find("main").Html()
		require.NoError(t, err)
		if first == "" {
			first = body
		}
		require.Equal(t, first, body, "the cached page is the page")
	}
	require.EqualValues(t, 1, counting.gets.Load(), "the version was read and presented once")

	rec := a.Request(reader, http.MethodGet, "/drivers/hello-web?version=9.9.9", nil)
	require.Equal(t, http.StatusNotFound, rec.Code, "an unknown version is still not found")
}
