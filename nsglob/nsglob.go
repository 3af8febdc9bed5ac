// Package nsglob owns the glob patterns of namespaces that the namespace
// policy and a team's policy are written in: how they match, and which
// patterns are valid.
package nsglob

import (
	"fmt"
	"path"
	"slices"
	"strings"

	"github.com/styrmin/styrmin"
)

// Match reports whether pattern matches namespace: `*` any characters, `?`
// one, `[a-z]` a class. An invalid pattern matches nothing.
func Match(pattern, namespace string) bool {
	ok, _ := path.Match(pattern, namespace)
	return ok
}

// MatchAny reports whether any of patterns matches namespace.
func MatchAny(patterns []string, namespace string) bool {
	for _, p := range patterns {
		if Match(p, namespace) {
			return true
		}
	}
	return false
}

// Check refuses patterns that are not namespace globs (EINVALID, naming
// each bad one).
func Check(patterns []string) error {
	var bad []string
	for _, pattern := range patterns {
		if _, err := path.Match(pattern, ""); err != nil || strings.Trim(pattern, "abcdefghijklmnopqrstuvwxyz0123456789-*?[]^!") != "" {
			bad = append(bad, fmt.Sprintf("%q", pattern))
		}
	}
	if len(bad) > 0 {
		return styrmin.Errorf(styrmin.EINVALID, "These patterns are not namespace patterns: %s. Use lower-case letters, digits and '-', with * (any characters), ? (one) or [a-z] (a class).", strings.Join(bad, ", "))
	}
	return nil
}

// Clean trims patterns and drops blank and repeated ones, keeping their
// order; never nil.
func Clean(patterns []string) []string {
	out := []string{}
	for _, p := range patterns {
		if p = strings.TrimSpace(p); p != "" && !slices.Contains(out, p) {
			out = append(out, p)
		}
	}
	return out
}
