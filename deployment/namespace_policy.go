package deployment

import (
	"context"
	"fmt"
	"path"
	"slices"
	"strings"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/styrmin/styrmin"
	"github.com/styrmin/styrmin/audit"
	"github.com/styrmin/styrmin/db"
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
	return slices.ContainsFunc(reserved(own), func(p string) bool { ok, _ := path.Match(p, namespace); return ok })
}

// permits says why namespace may not receive deployments, "" when it may;
// own is Styrmin's own namespace ("" when none).
func (p NamespacePolicy) permits(namespace, own string) string {
	if Reserved(namespace, own) {
		if slices.Contains(p.Allowed, namespace) {
			return ""
		}
		return fmt.Sprintf("namespace %s is reserved for Kubernetes or Styrmin itself; deploy elsewhere, or ask an admin to allow %s by its exact name on the Namespaces page", namespace, namespace)
	}
	for _, pattern := range p.Allowed {
		if ok, _ := path.Match(pattern, namespace); ok {
			return ""
		}
	}
	if len(p.Allowed) == 0 {
		return "an admin has allowed no namespace yet; ask one to allow namespaces on the Namespaces page"
	}
	return fmt.Sprintf("namespace %s is not allowed: deployments may go into %s; choose one of those, or ask an admin to allow it on the Namespaces page",
		namespace, strings.Join(p.Allowed, ", "))
}

// checkPatterns refuses a policy whose patterns are not namespace globs.
func (p NamespacePolicy) checkPatterns() error {
	var bad []string
	for _, pattern := range p.Allowed {
		if _, err := path.Match(pattern, ""); err != nil || strings.Trim(pattern, "abcdefghijklmnopqrstuvwxyz0123456789-*?[]^!") != "" {
			bad = append(bad, fmt.Sprintf("%q", pattern))
		}
	}
	if len(bad) > 0 {
		return styrmin.Errorf(styrmin.EINVALID, "These patterns are not namespace patterns: %s. Use lower-case letters, digits and '-', with * (any characters), ? (one) or [a-z] (a class).", strings.Join(bad, ", "))
	}
	return nil
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
	p.Allowed = cleanPatterns(p.Allowed)
	if err := p.checkPatterns(); err != nil {
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

// cleanPatterns trims patterns and drops blank and repeated ones, keeping their order.
func cleanPatterns(patterns []string) []string {
	out := []string{}
	for _, p := range patterns {
		if p = strings.TrimSpace(p); p != "" && !slices.Contains(out, p) {
			out = append(out, p)
		}
	}
	return out
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

// NamespaceRefusal returns the policy in force and says why it refuses an
// install into namespace ("" when it does not).
func (s *Service) NamespaceRefusal(ctx context.Context, namespace string) (NamespacePolicy, string, error) {
	policy, err := s.NamespacePolicy(ctx)
	if err != nil {
		return policy, "", err
	}
	return policy, policy.permits(namespace, s.ownNamespace()), nil
}
