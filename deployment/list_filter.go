package deployment

import (
	"slices"
	"strings"

	"github.com/styrmin/styrmin"
	"github.com/styrmin/styrmin/db"
	"github.com/styrmin/styrmin/health"
)

// MaxListFilterText bounds each text of a ListFilter, in bytes: longer than
// any name, driver or namespace can be.
const MaxListFilterText = 253

// ListFilter narrows the deployments list; its zero value lists every one.
// Query, Driver and Namespace are the database's columns (filtered in SQL,
// through an index for Driver and Namespace); Health and Drifted are the
// newest reads kept in memory (WatchHealth, WatchDrift), turned into the
// names of the deployments that have them and filtered in SQL too, so that
// a page reads its own rows only.
type ListFilter struct {
	// Query is a substring of the name, whatever its case.
	Query string
	// Driver is the driver's name, exactly.
	Driver string
	// Namespace is the namespace, exactly.
	Namespace string
	// Health is a health word (health.Words): live deployments whose newest
	// health read says it; deleted ones and those never read are left out.
	Health health.Word
	// Drifted, when set, keeps the live deployments whose newest drift read
	// says DriftDrifted (true) or leaves them out (false: Synced, Unknown,
	// never read and deleted ones stay).
	Drifted *bool
}

// IsZero reports whether f filters nothing.
func (f ListFilter) IsZero() bool { return f == ListFilter{} }

// check refuses a filter no deployment could match by construction: a text
// past MaxListFilterText, an unknown health word.
func (f ListFilter) check() error {
	for _, text := range []struct{ what, v string }{{"search", f.Query}, {"driver", f.Driver}, {"namespace", f.Namespace}} {
		if len(text.v) > MaxListFilterText {
			return styrmin.Errorf(styrmin.EINVALID, "The %s filter is %d bytes long; at most %d are allowed.", text.what, len(text.v), MaxListFilterText)
		}
	}
	if f.Health != "" && !slices.Contains(health.Words, f.Health) {
		return styrmin.Errorf(styrmin.EINVALID, "%q is not a health: give one of %s.", f.Health, healthWordList())
	}
	return nil
}

// healthWordList is every health word, for an error message.
func healthWordList() string {
	words := make([]string, len(health.Words))
	for i, w := range health.Words {
		words[i] = string(w)
	}
	return strings.Join(words, ", ")
}

// applyFilter sets f in the list query's parameters, with the names the
// in-memory reads give; none reports that no deployment can match (a
// health or drift asked for that no deployment has).
func (s *Service) applyFilter(f ListFilter, p *db.ListDeploymentsParams) (none bool) {
	p.Query, p.Driver, p.Namespace = strings.ToLower(f.Query), f.Driver, f.Namespace
	var only []string
	restrict := func(names []string) {
		if !p.OnlyNames {
			only, p.OnlyNames = names, true
			return
		}
		only = slices.DeleteFunc(only, func(n string) bool { _, found := slices.BinarySearch(names, n); return !found })
	}
	if f.Health != "" {
		restrict(s.healths.namesWhere(func(h *Health) bool { return h.Word == f.Health }))
	}
	if f.Drifted != nil {
		drifted := s.drifts.namesWhere(func(d *Drift) bool { return d.Word == DriftDrifted })
		if *f.Drifted {
			restrict(drifted)
		} else {
			p.ExceptNames = drifted
		}
	}
	p.Names = only
	return p.OnlyNames && len(only) == 0
}
