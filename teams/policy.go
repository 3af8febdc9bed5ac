package teams

import (
	"context"
	"fmt"
	"regexp"
	"slices"
	"strings"

	"github.com/styrmin/styrmin"
	"github.com/styrmin/styrmin/db"
	"github.com/styrmin/styrmin/nsglob"
)

// Policy is what a team may do beyond its members' roles. Each rule is
// optional: nil is "no rule of the team's own".
type Policy struct {
	// Namespaces are glob patterns of the namespaces the team's deployments
	// may go into; they replace the global namespace policy's patterns for
	// the team (the reserved namespaces stay refused unless named exactly).
	// Nil: the global policy's.
	Namespaces []string
	// Drivers are the drivers the team may deploy, each a driver name or a
	// label selector written "label:KEY=VALUE". Nil: every driver.
	Drivers []string
	// MaxDeployments is the most live deployments the team may hold.
	MaxDeployments *int64
	// MaxCPUMillis and MaxMemoryBytes are the most CPU (millicores) and
	// memory the team's live deployments may request together, from their
	// rendered manifests (package requests; deployment checks them at an
	// install's plan and an upgrade's review and confirm).
	MaxCPUMillis, MaxMemoryBytes *int64
}

// labelPrefix starts a driver entry that selects drivers by label.
const labelPrefix = "label:"

// driverNameRE is a driver's name (drivers.Metadata's rule), and labelRE a
// label entry's KEY=VALUE.
var (
	driverNameRE = regexp.MustCompile(`^[a-z0-9]([-a-z0-9]*[a-z0-9])?$`)
	labelRE      = regexp.MustCompile(`^[A-Za-z0-9]([A-Za-z0-9._/-]*[A-Za-z0-9])?=[^=\s]*$`)
)

// Check refuses a policy whose namespace entries are not namespace globs,
// whose driver entries are neither a driver name nor label:KEY=VALUE, or
// whose numbers are negative; the error names the field.
func (p Policy) Check() error {
	if err := nsglob.Check(p.Namespaces); err != nil {
		return &styrmin.Error{Code: styrmin.EINVALID, Message: styrmin.ErrorMessage(err), Fields: map[string]string{"namespaces": styrmin.ErrorMessage(err)}}
	}
	var bad []string
	for _, d := range p.Drivers {
		label, isLabel := strings.CutPrefix(d, labelPrefix)
		if isLabel && !labelRE.MatchString(label) || !isLabel && !driverNameRE.MatchString(d) {
			bad = append(bad, fmt.Sprintf("%q", d))
		}
	}
	if len(bad) > 0 {
		msg := fmt.Sprintf("These are not drivers: %s. Give a driver's name (redis) or a label of drivers written label:KEY=VALUE (label:category=database).", strings.Join(bad, ", "))
		return &styrmin.Error{Code: styrmin.EINVALID, Message: msg, Fields: map[string]string{"drivers": msg}}
	}
	for field, n := range map[string]*int64{"max_deployments": p.MaxDeployments, "max_cpu": p.MaxCPUMillis, "max_memory": p.MaxMemoryBytes} {
		if n != nil && *n < 0 {
			msg := "A quota cannot be negative."
			return &styrmin.Error{Code: styrmin.EINVALID, Message: msg, Fields: map[string]string{field: msg}}
		}
	}
	return nil
}

// AllowsDriver reports whether the team may deploy a driver version of
// that name and labels: every driver without a rule, else one its name or
// one of its labels is listed for.
func (p Policy) AllowsDriver(name string, labels map[string]string) bool {
	if p.Drivers == nil {
		return true
	}
	return slices.ContainsFunc(p.Drivers, func(entry string) bool {
		selector, isLabel := strings.CutPrefix(entry, labelPrefix)
		if !isLabel {
			return entry == name
		}
		key, value, _ := strings.Cut(selector, "=")
		v, ok := labels[key]
		return ok && v == value
	})
}

// DriversAllowed says which drivers the team may deploy, for a refusal.
func (p Policy) DriversAllowed() string {
	if len(p.Drivers) == 0 {
		return "no driver"
	}
	return strings.Join(p.Drivers, ", ")
}

// SetPolicy replaces a team's policy, its namespace and driver entries
// trimmed (blank and repeated ones dropped). The install's plan checks it
// from then on; deployments already made stay where they are. Errors:
// EINVALID for an entry that is no pattern or driver (see Check).
func (s *Store) SetPolicy(ctx context.Context, team string, p Policy) error {
	p.Namespaces, p.Drivers = cleanEntries(p.Namespaces), cleanEntries(p.Drivers)
	if err := p.Check(); err != nil {
		return err
	}
	n, err := s.q.SetTeamPolicy(ctx, db.SetTeamPolicyParams{Name: team, Namespaces: p.Namespaces, Drivers: p.Drivers,
		MaxDeployments: p.MaxDeployments, MaxCpuMillis: p.MaxCPUMillis, MaxMemoryBytes: p.MaxMemoryBytes})
	if err != nil {
		return db.Classify(err)
	}
	if n == 0 {
		return NoSuchTeam(team)
	}
	return nil
}

// cleanEntries is nsglob.Clean of a rule's entries, nil (no rule) kept nil.
func cleanEntries(entries []string) []string {
	if entries == nil {
		return nil
	}
	return nsglob.Clean(entries)
}

// PolicyOf is the policy of a team's row.
func PolicyOf(t db.Team) Policy {
	return Policy{Namespaces: t.Namespaces, Drivers: t.Drivers, MaxDeployments: t.MaxDeployments, MaxCPUMillis: t.MaxCpuMillis, MaxMemoryBytes: t.MaxMemoryBytes}
}
