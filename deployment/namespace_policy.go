package deployment

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/styrmin/styrmin/audit"
	"github.com/styrmin/styrmin/db"
	"github.com/styrmin/styrmin/nsglob"
)

// NamespacePolicy is where operators may deploy, as admins set it: the
// namespaces allowed, and whether Styrmin may create one that does not exist.
type NamespacePolicy struct {
	// Allowed are glob patterns (`*` any characters, `?` one, `[a-z]` a
	// class) of the namespaces deployments may go into. A reserved namespace
	// (see Reserved) is allowed only by an entry that names it exactly.
	Allowed []string
	// CreateNamespaces lets an install create its namespace when it does not
	// exist; otherwise an admin creates it first.
	CreateNamespaces bool
	// UpdatedBy and UpdatedAt say who set the policy last, and when
	// ("" before any admin did).
	UpdatedBy string
	UpdatedAt time.Time
	// Reserved are the patterns of the reserved namespaces (see Reserved),
	// Styrmin's own included when it runs in the cluster; read only.
	Reserved []string
}

// reservedPatterns are the namespaces of Kubernetes itself, refused unless
// the policy names one exactly.
var reservedPatterns = []string{"kube-*", "default"}

// reserved are the patterns of the reserved namespaces: Kubernetes's, and
// Styrmin's own (own; "" when Styrmin runs outside the cluster).
func reserved(own string) []string {
	if own == "" {
		return reservedPatterns
	}
	return append(slices.Clone(reservedPatterns), own)
}

// Reserved reports whether namespace belongs to Kubernetes (kube-*, default)
// or to Styrmin itself (own; "" when Styrmin runs outside the cluster).
func Reserved(namespace, own string) bool {
	return nsglob.MatchAny(reserved(own), namespace)
}

// permits says why namespace may not receive deployments, "" when it may;
// own is Styrmin's own namespace ("" when none).
func (p NamespacePolicy) permits(namespace, own string) string {
	return allowedBy(p.Allowed, namespace, own, globalRule)
}

// namespaceRule is whose patterns refuse a namespace, and so what a refusal says.
type namespaceRule struct {
	// none is the refusal when there are no patterns; notAllowed the one of
	// a namespace no pattern matches (namespace, then the patterns).
	none, notAllowed string
	// where says where an admin allows a reserved namespace by name.
	where string
}

// globalRule is the refusal of the global namespace policy.
var globalRule = namespaceRule{
	none:       "an admin has allowed no namespace yet; ask one to allow namespaces on the Namespaces page",
	notAllowed: "namespace %s is not allowed: deployments may go into %s; choose one of those, or ask an admin to allow it on the Namespaces page",
	where:      "on the Namespaces page",
}

// teamRule is the refusal of a team's own namespaces.
func teamRule(team string) namespaceRule {
	return namespaceRule{
		none:       fmt.Sprintf("the team %s may deploy into no namespace; ask an admin to set the team's namespaces", team),
		notAllowed: "namespace %s is not allowed for the team " + team + ": its deployments may go into %s; choose one of those, or ask an admin to change the team's namespaces",
		where:      "in the team's namespaces",
	}
}

// allowedBy says why patterns refuse namespace, "" when they allow it: a
// reserved namespace (own: Styrmin's) only by its exact name.
func allowedBy(patterns []string, namespace, own string, rule namespaceRule) string {
	if Reserved(namespace, own) {
		if slices.Contains(patterns, namespace) {
			return ""
		}
		return fmt.Sprintf("namespace %s is reserved for Kubernetes or Styrmin itself; deploy elsewhere, or ask an admin to allow %s by its exact name %s", namespace, namespace, rule.where)
	}
	if nsglob.MatchAny(patterns, namespace) {
		return ""
	}
	if len(patterns) == 0 {
		return rule.none
	}
	return fmt.Sprintf(rule.notAllowed, namespace, strings.Join(patterns, ", "))
}

// NamespacePolicy returns the policy in force.
func (s *Service) NamespacePolicy(ctx context.Context) (NamespacePolicy, error) {
	row, err := s.q.GetNamespacePolicy(ctx)
	if err != nil {
		return NamespacePolicy{}, fmt.Errorf("deployment: read the namespace policy: %w", err)
	}
	return s.policyOf(row), nil
}

// SetNamespacePolicy replaces the policy with p's patterns (trimmed, blank
// and repeated ones dropped) and CreateNamespaces, set by by. It applies to
// installs from then on; deployments already made stay where they are.
// Errors: EINVALID for a pattern that is not a namespace glob.
func (s *Service) SetNamespacePolicy(ctx context.Context, p NamespacePolicy, by string) (NamespacePolicy, error) {
	p.Allowed = nsglob.Clean(p.Allowed)
	if err := nsglob.Check(p.Allowed); err != nil {
		return NamespacePolicy{}, err
	}
	var row db.NamespacePolicy
	var audited func()
	err := pgx.BeginFunc(ctx, s.pool, func(tx pgx.Tx) error {
		var err error
		if row, err = s.q.WithTx(tx).SetNamespacePolicy(ctx, db.SetNamespacePolicyParams{Allowed: p.Allowed, CreateNamespaces: p.CreateNamespaces, UpdatedBy: by}); err != nil {
			return err
		}
		audited, err = audit.Within(ctx, tx, "namespaces", 0)
		return err
	})
	if err != nil {
		return NamespacePolicy{}, fmt.Errorf("deployment: set the namespace policy: %w", err)
	}
	audited()
	return s.policyOf(row), nil
}

// policyOf is the policy of its database row.
func (s *Service) policyOf(row db.NamespacePolicy) NamespacePolicy {
	return NamespacePolicy{Allowed: row.Allowed, CreateNamespaces: row.CreateNamespaces, UpdatedBy: row.UpdatedBy, UpdatedAt: row.UpdatedAt,
		Reserved: reserved(s.ownNamespace())}
}

// ownNamespace is the namespace Styrmin runs in, "" outside a cluster or without one.
func (s *Service) ownNamespace() string {
	if s.cluster == nil || s.cluster.Kube == nil {
		return ""
	}
	return s.cluster.Kube.OwnNamespace
}

// NamespaceRefusal returns the policy in force and says why an install
// into namespace for team (its id) is refused ("" when it is not): by the
// team's own namespaces when it has them, else by the global policy's
// patterns.
func (s *Service) NamespaceRefusal(ctx context.Context, namespace string, team int64) (NamespacePolicy, string, error) {
	policy, err := s.NamespacePolicy(ctx)
	if err != nil {
		return policy, "", err
	}
	row, err := s.q.GetTeam(ctx, team)
	if err != nil {
		return policy, "", fmt.Errorf("deployment: read the team's policy: %w", db.Classify(err))
	}
	return policy, s.namespaceRefusal(policy, namespace, &row), nil
}

// namespaceRefusal says why namespace is refused to team's deployments: by
// the team's own namespaces when it has them, else (team nil too) by the
// global policy's patterns.
func (s *Service) namespaceRefusal(global NamespacePolicy, namespace string, team *db.Team) string {
	if team != nil && team.Namespaces != nil {
		return allowedBy(team.Namespaces, namespace, s.ownNamespace(), teamRule(team.Name))
	}
	return global.permits(namespace, s.ownNamespace())
}
