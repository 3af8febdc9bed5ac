package auth

import (
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/styrmin/styrmin"
)

func TestParseAPITokenLifetime(t *testing.T) {
	t.Parallel()
	const day = 24 * time.Hour
	for _, tc := range []struct {
		in   string
		want time.Duration
	}{
		{"12h", 12 * time.Hour},
		{"30d", 30 * day},
		{" 2W ", 14 * day},
		{"1y", 365 * day},
		{"10y", 3650 * day},
		{"never", 0},
	} {
		got, err := ParseAPITokenLifetime(tc.in)
		require.NoError(t, err, tc.in)
		require.Equal(t, tc.want, got, tc.in)
	}
	for _, in := range []string{"", "d", "30", "0d", "-1d", "1.5d", "30m", "30 days", "11y", "99999999999y", "forever"} {
		_, err := ParseAPITokenLifetime(in)
		require.Equal(t, styrmin.EINVALID, styrmin.ErrorCode(err), "%q", in)
		require.Contains(t, styrmin.ErrorFields(err), "expires", "%q", in)
	}
}

func TestAPITokenExpiry(t *testing.T) {
	t.Parallel()
	now := time.Date(2026, 12, 2, 18, 0, 0, 0, time.UTC)
	require.Nil(t, APITokenExpiry(now, 0), "never expires")
	require.Equal(t, now.Add(time.Hour), *APITokenExpiry(now, time.Hour))
}
