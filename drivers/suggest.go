package drivers

import (
	"slices"
	"strings"
)

// suggest returns a hint for a misspelt name: the closest candidate when one is
// near, else the list of candidates. It starts with "; " so it can follow a message.
func suggest(name string, candidates []string) string {
	if len(candidates) == 0 {
		return ""
	}
	best, bestDist := "", 3
	norm := normalizeName(name)
	for _, c := range candidates {
		if normalizeName(c) == norm {
			return "; did you mean \"" + c + "\"?"
		}
		if d := editDistance(name, c); d < bestDist {
			best, bestDist = c, d
		}
	}
	if best != "" {
		return "; did you mean \"" + best + "\"?"
	}
	sorted := slices.Sorted(slices.Values(candidates))
	return "; allowed: " + strings.Join(sorted, ", ")
}

// normalizeName folds case, '-' and '_' so that camelCase, snake_case and kebab-case compare equal.
func normalizeName(s string) string {
	return strings.NewReplacer("_", "", "-", "").Replace(strings.ToLower(s))
}

// editDistance is the Levenshtein distance between a and b.
func editDistance(a, b string) int {
	prev := make([]int, len(b)+1)
	cur := make([]int, len(b)+1)
	for j := range prev {
		prev[j] = j
	}
	for i := 1; i <= len(a); i++ {
		cur[0] = i
		for j := 1; j <= len(b); j++ {
			cost := 1
			if a[i-1] == b[j-1] {
				cost = 0
			}
			cur[j] = min(prev[j]+1, cur[j-1]+1, prev[j-1]+cost)
		}
		prev, cur = cur, prev
	}
	return prev[len(b)]
}
