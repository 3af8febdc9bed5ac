package kube

import (
	"cmp"
	"fmt"
	"maps"
	"slices"
	"strconv"
	"strings"
)

// The most Describe names of each list: releases, kinds, names of one kind,
// unchecked types.
const (
	describeReleases  = 3
	describeKinds     = 6
	describeNames     = 3
	describeUnchecked = 3
)

// Describe says what l holds, for a person, as one or two clauses: "it
// still holds Helm release shop (of deployment shop; 4 objects), 2
// PersistentVolumeClaims (data-db-0, data-db-1) and 1 ConfigMap (notes)",
// then what could not be listed. Objects of a Helm release whose records are
// left (Leftover.Release) count under that release, noted by note ("" or a nil note: no
// note); the others count by kind, volumes first, each with its first few
// names. It returns "" when l is Empty.
func (l Leftovers) Describe(note func(release string) string) string {
	var clauses []string
	if parts := l.holdings(note); len(parts) > 0 {
		held := "it still holds " + joinAnd(parts)
		if l.Truncated {
			held += fmt.Sprintf(", and maybe more (Styrmin stops looking after %d objects)", LeftoverBudget)
		}
		clauses = append(clauses, held)
	} else if l.Truncated {
		clauses = append(clauses, fmt.Sprintf("it holds more than the %d objects Styrmin looks at", LeftoverBudget))
	}
	if n := len(l.Unchecked); n > 0 {
		var names []string
		for _, u := range l.Unchecked[:min(n, describeUnchecked)] {
			names = append(names, u.Resource+" ("+u.Reason+")")
		}
		if n > describeUnchecked {
			names = append(names, "…")
		}
		clauses = append(clauses, fmt.Sprintf("Styrmin could not list %s, which may hold more: %s", count(n, "type"), strings.Join(names, ", ")))
	}
	return strings.Join(clauses, "; ")
}

// holdings are the phrases of Describe's first clause: releases, then kinds.
func (l Leftovers) holdings(note func(string) string) []string {
	releases := map[string]int{}
	for _, o := range l.Objects {
		if o.isReleaseRecord() {
			releases[o.Release()] = 0
		}
	}
	type kind struct {
		name  string
		names []string
	}
	kinds := map[string]*kind{}
	for _, o := range l.Objects {
		if n, ok := releases[o.Release()]; ok {
			releases[o.Release()] = n + 1
			continue
		}
		key := o.Resource.GroupResource().String()
		if kinds[key] == nil {
			kinds[key] = &kind{name: o.Kind}
		}
		kinds[key].names = append(kinds[key].names, o.Meta.Name)
	}

	var parts []string
	names := slices.Sorted(maps.Keys(releases))
	for i, r := range names {
		if i == describeReleases {
			parts = append(parts, count(len(names)-i, "more Helm release"))
			break
		}
		what := count(releases[r], "object")
		if note != nil && note(r) != "" {
			what = note(r) + "; " + what
		}
		parts = append(parts, fmt.Sprintf("Helm release %s (%s)", r, what))
	}

	keys := slices.SortedFunc(maps.Keys(kinds), func(a, b string) int {
		// Volumes first: they hold the data.
		return cmp.Or(cmp.Compare(rank(a), rank(b)), strings.Compare(kinds[a].name, kinds[b].name), strings.Compare(a, b))
	})
	for i, k := range keys {
		if i == describeKinds {
			rest := 0
			for _, k := range keys[i:] {
				rest += len(kinds[k].names)
			}
			parts = append(parts, fmt.Sprintf("%s of %s", count(rest, "object"), count(len(keys)-i, "other kind")))
			break
		}
		ns := slices.Sorted(slices.Values(kinds[k].names))
		shown := ns[:min(len(ns), describeNames)]
		if len(ns) > describeNames {
			shown = append(shown, "…")
		}
		parts = append(parts, fmt.Sprintf("%s (%s)", count(len(ns), kinds[k].name), strings.Join(shown, ", ")))
	}
	return parts
}

// rank orders resource types in Describe: PersistentVolumeClaims first.
func rank(resource string) int {
	if resource == "persistentvolumeclaims" {
		return 0
	}
	return 1
}

// count is "1 ConfigMap", "2 ConfigMaps", "3 NetworkPolicies".
func count(n int, noun string) string {
	if n == 1 {
		return "1 " + noun
	}
	return strconv.Itoa(n) + " " + plural(noun)
}

// plural is the English plural of a kind: "Ingresses", "NetworkPolicies".
func plural(noun string) string {
	switch {
	case strings.HasSuffix(noun, "s"), strings.HasSuffix(noun, "x"), strings.HasSuffix(noun, "ch"), strings.HasSuffix(noun, "sh"):
		return noun + "es"
	case strings.HasSuffix(noun, "y") && len(noun) > 1 && !strings.ContainsRune("aeiouAEIOU", rune(noun[len(noun)-2])):
		return noun[:len(noun)-1] + "ies"
	}
	return noun + "s"
}

// joinAnd joins "a", "b", "c" as "a, b and c".
func joinAnd(parts []string) string {
	if len(parts) < 2 {
		return strings.Join(parts, "")
	}
	return strings.Join(parts[:len(parts)-1], ", ") + " and " + parts[len(parts)-1]
}
