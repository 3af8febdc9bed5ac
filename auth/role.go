// Package auth owns who may do what: users, their argon2id passwords, roles,
// sessions, CSRF tokens and sign-in throttling.
package auth

import (
	"github.com/styrmin/styrmin"
)

// Role is what a user may do. Roles are ordered: each includes the ones below it.
type Role int

// The roles, from least to most. Anonymous is nobody signed in. A Member
// has no role of their own beyond signing in and reading the catalogue:
// what they may do with a deployment is their role in its team (package
// teams). The other roles hold for every team's deployments.
const (
	Anonymous Role = iota
	Member
	ReadOnly
	Operator
	Admin
)

// Roles returns the roles a user can have, from least to most.
func Roles() []Role { return []Role{Member, ReadOnly, Operator, Admin} }

// String returns the role's name as stored and shown: "member", "read-only", "operator", "admin".
func (r Role) String() string {
	switch r {
	case Member:
		return "member"
	case ReadOnly:
		return "read-only"
	case Operator:
		return "operator"
	case Admin:
		return "admin"
	default:
		return "anonymous"
	}
}

// AtLeast reports whether r includes everything least may do.
func (r Role) AtLeast(least Role) bool { return r >= least }

// ParseRole turns a role's name into a Role.
func ParseRole(name string) (Role, error) {
	for _, r := range Roles() {
		if r.String() == name {
			return r, nil
		}
	}
	return Anonymous, styrmin.Errorf(styrmin.EINVALID, "unknown role %q: use admin, operator, read-only or member", name)
}
