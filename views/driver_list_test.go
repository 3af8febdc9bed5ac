package views

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

func TestDriverGrid(t *testing.T) {
	t.Parallel()
	doc := renderDoc(t, DriverGrid(DriverListProps{
		Total: 3, Matches: 2, PageNumber: 1, Pages: 1,
		Cards: []DriverCard{
			{Name: "redis", Version: "1.0.0", Title: "Redis", IconURL: "/drivers/redis/1.0.0/icon", Versions: 2,
				Labels: []DriverLabel{{Key: "category", Value: "cache"}}},
			{Name: "ünicode", Version: "0.1.0", Title: "ünicode"},
		},
	}))
	require.Equal(t, "2 of 3 drivers", strings.TrimSpace(doc.Find(`[data-testid="driver-count"]`).Text()))
	require.Zero(t, doc.Find(`[data-testid="driver-pager"]`).Length(), "one page needs no pager")
	redis := doc.Find(`[data-driver="redis"]`)
	require.Equal(t, "/drivers/redis/1.0.0/icon", redis.Find(`img[data-testid="driver-icon"]`).AttrOr("src", ""))
	require.Equal(t, "/drivers?label=category%3Dcache", redis.Find(`[data-testid="driver-label"]`).AttrOr("href", ""))
	require.Contains(t, redis.Text(), "2 versions")
	other := doc.Find(`[data-driver="ünicode"]`)
	require.Zero(t, other.Find("img").Length(), "no icon, no image")
	require.Equal(t, "Ü", other.Find(`[data-testid="driver-icon-placeholder"]`).Text())
}

func TestDriverGridPagesKeepTheFilter(t *testing.T) {
	t.Parallel()
	doc := renderDoc(t, DriverGrid(DriverListProps{
		Query: "sql", Label: "category=database", Total: 100, Matches: 50, PageNumber: 2, Pages: 3,
		Cards: []DriverCard{{Name: "postgresql", Version: "1.0.0", Title: "PostgreSQL"}},
	}))
	require.Equal(t, "50 of 100 drivers · page 2 of 3", strings.Join(strings.Fields(doc.Find(`[data-testid="driver-count"]`).Text()), " "))
	require.Equal(t, "/drivers?label=category%3Ddatabase&page=1&q=sql", doc.Find(`[data-testid="driver-page-previous"]`).AttrOr("href", ""))
	require.Equal(t, "/drivers?label=category%3Ddatabase&page=3&q=sql", doc.Find(`[data-testid="driver-page-next"]`).AttrOr("hx-get", ""))
}

func TestDriverGridEmpty(t *testing.T) {
	t.Parallel()
	doc := renderDoc(t, DriverGrid(DriverListProps{Total: 0}))
	require.Contains(t, doc.Find(`[data-testid="driver-empty"]`).Text(), "No drivers yet")
	doc = renderDoc(t, DriverGrid(DriverListProps{Total: 2, Query: "x"}))
	require.Contains(t, doc.Find(`[data-testid="driver-empty"]`).Text(), "No driver matches")
}

func TestPlaceholderToneIsStable(t *testing.T) {
	t.Parallel()
	require.Equal(t, placeholderTone("postgresql"), placeholderTone("postgresql"))
	require.Regexp(t, `^tone-[0-5]$`, placeholderTone("redis"))
	require.Equal(t, "?", initial("   "))
}
