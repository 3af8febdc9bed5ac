package teams

import (
	"context"
	"slices"
	"strings"

	"github.com/styrmin/styrmin/auth"
	"github.com/styrmin/styrmin/db"
)

// Drivers is which drivers the catalogue shows a user: every driver to a
// user with a role of their own (read-only or more), else those some team
// of theirs may deploy (its policy's Drivers).
type Drivers struct {
	// every is set when every driver is shown.
	every bool
	// rules are the driver rules of the user's teams, each sorted, the
	// list sorted and without repeats.
	rules [][]string
}

// DriversOf returns which drivers the catalogue shows u, reading the
// driver rules of their teams (of their one team, for a token narrowed to
// it) in one query when their own role is member.
func (s *Store) DriversOf(ctx context.Context, u auth.User) (Drivers, error) {
	if u.Role.AtLeast(auth.ReadOnly) {
		return Drivers{every: true}, nil
	}
	rows, err := s.q.ListUserTeamDrivers(ctx, db.ListUserTeamDriversParams{UserID: u.ID, OnlyTeam: u.OnlyTeam})
	if err != nil {
		return Drivers{}, db.Classify(err)
	}
	d := Drivers{}
	for _, rule := range rows {
		if rule == nil {
			return Drivers{every: true}, nil
		}
		d.rules = append(d.rules, slices.Sorted(slices.Values(rule)))
	}
	slices.SortFunc(d.rules, slices.Compare)
	d.rules = slices.CompactFunc(d.rules, slices.Equal)
	return d, nil
}

// Every reports whether every driver is shown.
func (d Drivers) Every() bool { return d.every }

// Allows reports whether a driver of that name and labels is shown: some
// team's rule allows it (Policy.AllowsDriver).
func (d Drivers) Allows(name string, labels map[string]string) bool {
	return d.every || slices.ContainsFunc(d.rules, func(rule []string) bool {
		return Policy{Drivers: rule}.AllowsDriver(name, labels)
	})
}

// Key names the drivers shown, for a cache of what they show: "" for every
// driver, and one key for users whose teams have the same rules.
func (d Drivers) Key() string {
	if d.every {
		return ""
	}
	var b strings.Builder
	b.WriteString("teams")
	for _, rule := range d.rules {
		// Entries hold no white space (Policy.Check).
		b.WriteString("\n" + strings.Join(rule, " "))
	}
	return b.String()
}
