package auth

import (
	"fmt"
	"strconv"
	"strings"
	"time"
)

// maxAPITokenLifetime bounds a token's lifetime; "never" is the choice for
// a token that lasts until revoked.
const maxAPITokenLifetime = 10 * 365 * 24 * time.Hour

// lifetimeUnits are the units of a token's lifetime as people write it.
var lifetimeUnits = map[byte]time.Duration{
	'h': time.Hour,
	'd': 24 * time.Hour,
	'w': 7 * 24 * time.Hour,
	'y': 365 * 24 * time.Hour,
}

// ParseAPITokenLifetime reads a token's lifetime as the page and the command
// line give it: a whole number of hours, days, weeks or years ("12h", "30d",
// "2w", "1y"), or "never" for a token that lasts until revoked, which is 0.
// What it refuses is an EINVALID error about the field "expires".
func ParseAPITokenLifetime(s string) (time.Duration, error) {
	s = strings.ToLower(strings.TrimSpace(s))
	if s == "never" {
		return 0, nil
	}
	invalid := invalidField("expires", fmt.Sprintf("Give the lifetime as a number and a unit, such as 12h, 30d, 2w or 1y, or \"never\"; not %q.", s))
	if len(s) < 2 {
		return 0, invalid
	}
	unit, ok := lifetimeUnits[s[len(s)-1]]
	n, err := strconv.ParseUint(s[:len(s)-1], 10, 32)
	if !ok || err != nil || n == 0 {
		return 0, invalid
	}
	if time.Duration(n) > maxAPITokenLifetime/unit {
		return 0, invalidField("expires", "A token lasts at most 10 years; choose \"never\" for one that lasts until revoked.")
	}
	return time.Duration(n) * unit, nil
}

// APITokenExpiry returns when a token created at now with lifetime (from
// ParseAPITokenLifetime) expires: nil for 0, which is never.
func APITokenExpiry(now time.Time, lifetime time.Duration) *time.Time {
	if lifetime == 0 {
		return nil
	}
	at := now.Add(lifetime)
	return &at
}
