package web

import (
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/styrmin/styrmin/drivers"
	"github.com/styrmin/styrmin/views"
)

func ptr[T any](v T) *T { return &v }

func TestConstraints(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name string
		prm  drivers.Parameter
		want []string
	}{
		{name: "none", prm: drivers.Parameter{Type: drivers.TypeBoolean}, want: nil},
		{name: "length range", prm: drivers.Parameter{MinLength: ptr(1), MaxLength: ptr(63)}, want: []string{"1 to 63 characters"}},
		{name: "minimum length", prm: drivers.Parameter{MinLength: ptr(8)}, want: []string{"at least 8 characters"}},
		{name: "maximum length", prm: drivers.Parameter{MaxLength: ptr(40)}, want: []string{"at most 40 characters"}},
		{name: "number range", prm: drivers.Parameter{Min: ptr(0.5), Max: ptr(1024.0)}, want: []string{"from 0.5 to 1024"}},
		{name: "minimum", prm: drivers.Parameter{Min: ptr(1.0)}, want: []string{"at least 1"}},
		{name: "maximum", prm: drivers.Parameter{Max: ptr(-2.0)}, want: []string{"at most -2"}},
		{name: "choices", prm: drivers.Parameter{Choices: []any{"a", 2, true, 1.5}}, want: []string{"one of: a, 2, true, 1.5"}},
		{name: "pattern is shown apart", prm: drivers.Parameter{Pattern: "^[a-z]+$"}, want: nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			require.Equal(t, tt.want, constraints(tt.prm))
		})
	}
}

func TestViewParameterNeverShowsASecretDefault(t *testing.T) {
	t.Parallel()
	md := views.NewMarkdown()
	got, err := viewParameter(drivers.Parameter{Name: "password", Type: drivers.TypeSecret, Default: "hunter2"}, md)
	require.NoError(t, err)
	require.True(t, got.Secret)
	require.False(t, got.HasDefault)
	require.Empty(t, got.Default)

	got, err = viewParameter(drivers.Parameter{Name: "motd", Type: drivers.TypeString, Default: ""}, md)
	require.NoError(t, err)
	require.True(t, got.HasDefault, "an empty default is still a default")
	require.Equal(t, "motd", got.Title, "the title defaults to the name")
}

func TestViewParameterGroupsPutUngroupedFirst(t *testing.T) {
	t.Parallel()
	params := []drivers.Parameter{
		{Name: "a", Group: "Storage"},
		{Name: "b"},
		{Name: "c", Group: "Tuning"},
		{Name: "d", Group: "Storage"},
		{Name: "e"},
	}
	groups, err := viewParameterGroups(params, views.NewMarkdown())
	require.NoError(t, err)
	var got [][]string
	for _, g := range groups {
		names := []string{g.Name}
		for _, p := range g.Parameters {
			names = append(names, p.Name)
		}
		got = append(got, names)
	}
	require.Equal(t, [][]string{{"", "b", "e"}, {"Storage", "a", "d"}, {"Tuning", "c"}}, got)
}

func TestDuration(t *testing.T) {
	t.Parallel()
	for d, want := range map[time.Duration]string{
		10 * time.Minute:                 "10m",
		time.Hour:                        "1h",
		90 * time.Second:                 "1m30s",
		time.Hour + 30*time.Minute:       "1h30m",
		45 * time.Second:                 "45s",
		2*time.Hour + 5*time.Second:      "2h0m5s",
		time.Hour + time.Minute + 0:      "1h1m",
		3*time.Hour + 20*time.Minute + 0: "3h20m",
	} {
		require.Equal(t, want, duration(d), "%v", d)
	}
}
