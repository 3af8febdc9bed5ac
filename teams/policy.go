package teams

import (
	"context"

	"github.com/styrmin/styrmin"
	"github.com/styrmin/styrmin/db"
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
	// memory the team's deployments may request together, from their
	// rendered manifests.
	MaxCPUMillis, MaxMemoryBytes *int64
}

// SetPolicy replaces a team's policy. The install's plan checks it from then
// on; deployments already made stay where they are.
func (s *Store) SetPolicy(ctx context.Context, team string, p Policy) error {
	n, err := s.q.SetTeamPolicy(ctx, db.SetTeamPolicyParams{Name: team, Namespaces: p.Namespaces, Drivers: p.Drivers,
		MaxDeployments: p.MaxDeployments, MaxCpuMillis: p.MaxCPUMillis, MaxMemoryBytes: p.MaxMemoryBytes})
	if err != nil {
		return db.Classify(err)
	}
	if n == 0 {
		return styrmin.Errorf(styrmin.ENOTFOUND, "There is no team named %s.", team)
	}
	return nil
}

// policyOf is the policy of a team's row.
func policyOf(t db.Team) Policy {
	return Policy{Namespaces: t.Namespaces, Drivers: t.Drivers, MaxDeployments: t.MaxDeployments, MaxCPUMillis: t.MaxCpuMillis, MaxMemoryBytes: t.MaxMemoryBytes}
}
