package catalog

import (
	"testing"

	"github.com/stretchr/testify/require"
)

func TestSearch(t *testing.T) {
	t.Parallel()
	entries := []Entry{
		{Name: "postgresql", Title: "PostgreSQL", Summary: "A relational database.", Labels: map[string]string{"category": "database"}},
		{Name: "redis", Title: "Redis", Summary: "An in-memory key-value store.", Labels: map[string]string{"category": "cache"}},
		{Name: "hello-web", Title: "Hello Web", Summary: "A static website.", Labels: map[string]string{"category": "web"}},
	}
	tests := []struct {
		name  string
		query string
		label string
		want  []string
	}{
		{name: "empty query keeps all", want: []string{"postgresql", "redis", "hello-web"}},
		{name: "title, any case", query: "REDIS", want: []string{"redis"}},
		{name: "summary word", query: "relational", want: []string{"postgresql"}},
		{name: "every word must match", query: "static web", want: []string{"hello-web"}},
		{name: "words across fields", query: "hello website", want: []string{"hello-web"}},
		{name: "label text", query: "cache", want: []string{"redis"}},
		{name: "label filter", label: "category=database", want: []string{"postgresql"}},
		{name: "label filter and query", query: "redis", label: "category=database", want: []string{}},
		{name: "unknown label", label: "tier=gold", want: []string{}},
		{name: "no match", query: "mongodb", want: []string{}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			got := []string{}
			for _, e := range Search(entries, tt.query, tt.label) {
				got = append(got, e.Name)
			}
			require.Equal(t, tt.want, got)
		})
	}
}

func TestLabels(t *testing.T) {
	t.Parallel()
	got := Labels([]Entry{
		{Labels: map[string]string{"tier": "stateful", "category": "database"}},
		{Labels: map[string]string{"category": "database"}},
		{Labels: map[string]string{"category": "cache"}},
	})
	require.Equal(t, []Label{{"category", "cache"}, {"category", "database"}, {"tier", "stateful"}}, got)
}

func TestCompareVersions(t *testing.T) {
	t.Parallel()
	tests := []struct {
		a, b string
		want int
	}{
		{"1.10.0", "1.9.0", 1},
		{"1.0.0", "1.0.0-rc.1", 1},
		{"2.0.0", "2.0.0", 0},
		{"0.9.9", "1.0.0", -1},
	}
	for _, tt := range tests {
		require.Equal(t, tt.want, compareVersions(tt.a, tt.b), "%s vs %s", tt.a, tt.b)
	}
}
