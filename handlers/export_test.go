package handlers

import "github.com/styrmin/styrmin/auth"

// TableRoute is a line of the permission table as the route walk
// (routes_test.go) reads it.
type TableRoute struct {
	Method, Path           string
	Least                  auth.Role
	Bare, ActionToken, API bool
	// Scoped routes are about one deployment or one team: Least is the role
	// needed over it, the user's own or their role in its team.
	Scoped bool
	// Install routes (a deployment's, a webhook's) need Least in some team,
	// or as the user's own role.
	Install bool
	// Change is the audit log's action of a state-changing route.
	Change string
}

// Table is the permission table for d, for the route walk.
func Table(d Deps) []TableRoute {
	var out []TableRoute
	for _, r := range routes(d) {
		out = append(out, TableRoute{Method: r.method, Path: r.path, Least: r.least, Bare: r.bare, ActionToken: r.actionToken, API: r.api, Scoped: scopeOf(r.method, r.path) != nil && !inSomeTeam(scopeOf(r.method, r.path)), Install: inSomeTeam(scopeOf(r.method, r.path)), Change: r.change.action})
	}
	return out
}

// inSomeTeam reports whether a scope asks for a role in some team (an
// install, a new webhook) rather than over one thing.
func inSomeTeam(s *teamScope) bool { return s == installScope || s == webhookCreateScope }
