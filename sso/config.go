// Package sso signs people in through an OpenID Connect provider: the
// authorization code flow with PKCE, a state that is good once and only in
// the browser that started the sign-in, a nonce, and the ID token verified
// against the provider's keys (issuer, audience, expiry); the groups claim
// maps to a Styrmin role and to roles in teams.
package sso

import (
	"fmt"
	"slices"
	"strings"

	"github.com/styrmin/styrmin/auth"
	"github.com/styrmin/styrmin/teams"
)

// Config is how Styrmin reaches its OpenID Connect provider (--oidc-*).
type Config struct {
	// Issuer is the provider's issuer URL; its discovery document is at
	// Issuer + "/.well-known/openid-configuration" and must name it exactly.
	Issuer string
	// ClientID and ClientSecret are Styrmin's client at the provider.
	ClientID, ClientSecret string
	// RedirectURL is Styrmin's callback, CallbackPath under its external URL.
	RedirectURL string
	// Name is the provider's name on the sign-in button (default "single sign-on").
	Name string
	// Scopes are asked for besides openid (default profile, email).
	Scopes []string
	// GroupsClaim names the ID token's claim that lists the user's groups
	// (default "groups").
	GroupsClaim string
	// Roles maps groups to roles: a user gets the highest role of their
	// groups, and no access with none.
	Roles RoleGroups
	// Teams maps groups to roles in teams: at every sign-in the user's
	// memberships of the teams it names follow their groups; a user whose
	// groups give a team role and no role of their own is a member.
	Teams TeamGroups
	// PostLogoutURL is where the provider's end-session endpoint sends the
	// user back to (Styrmin's sign-in page).
	PostLogoutURL string
}

// Paths of the sign-in under Styrmin's URL.
const (
	// StartPath sends the browser to the provider.
	StartPath = "/signin/oidc"
	// CallbackPath is where the provider sends it back (the redirect URL).
	CallbackPath = "/signin/oidc/callback"
)

// RoleGroups maps the provider's groups to Styrmin roles.
type RoleGroups map[string]auth.Role

// ParseRoleGroups reads --oidc-role-groups: comma-separated role=group pairs,
// the role admin, operator or readonly (or read-only); a role may have many
// groups, a group one role.
func ParseRoleGroups(s string) (RoleGroups, error) {
	out := RoleGroups{}
	for pair := range strings.SplitSeq(s, ",") {
		pair = strings.TrimSpace(pair)
		if pair == "" {
			continue
		}
		name, group, ok := strings.Cut(pair, "=")
		name, group = strings.TrimSpace(name), strings.TrimSpace(group)
		if !ok || group == "" {
			return nil, fmt.Errorf("sso: role groups: %q is not role=group", pair)
		}
		role, err := parseGroupRole(name)
		if err != nil {
			return nil, fmt.Errorf("sso: role groups: %q: the role is admin, operator or readonly", pair)
		}
		if had, ok := out[group]; ok && had != role {
			return nil, fmt.Errorf("sso: role groups: group %q is given both %s and %s", group, had, role)
		}
		out[group] = role
	}
	if len(out) == 0 {
		return nil, fmt.Errorf("sso: role groups: map at least one group to a role, e.g. admin=styrmin-admins,operator=styrmin-operators,readonly=styrmin-readers")
	}
	return out, nil
}

// parseGroupRole reads a role a mapping gives: a role's name, or readonly
// for read-only (a group mapping's spelling, without the dash).
func parseGroupRole(name string) (auth.Role, error) {
	if name == "readonly" {
		name = auth.ReadOnly.String()
	}
	return auth.ParseRole(name)
}

// RoleOf is the highest role of groups; auth.Anonymous when none maps.
func (rg RoleGroups) RoleOf(groups []string) auth.Role {
	role := auth.Anonymous
	for _, g := range groups {
		if r, ok := rg[g]; ok && r > role {
			role = r
		}
	}
	return role
}

// TeamRole is a role in a team that a group gives.
type TeamRole struct {
	Team string
	Role auth.Role
}

// TeamGroups maps the provider's groups to roles in teams.
type TeamGroups map[string][]TeamRole

// ParseTeamGroups reads --oidc-team-groups: comma-separated TEAM:ROLE=GROUP
// entries, the role admin, operator or readonly (or read-only) in the team;
// a group may give roles in many teams, a team may be given by many groups.
func ParseTeamGroups(s string) (TeamGroups, error) {
	out := TeamGroups{}
	for entry := range strings.SplitSeq(s, ",") {
		entry = strings.TrimSpace(entry)
		if entry == "" {
			continue
		}
		teamRole, group, ok := strings.Cut(entry, "=")
		team, name, hasRole := strings.Cut(teamRole, ":")
		team, name, group = strings.TrimSpace(team), strings.TrimSpace(name), strings.TrimSpace(group)
		if !ok || !hasRole || team == "" || group == "" {
			return nil, fmt.Errorf("sso: team groups: %q is not team:role=group, such as payments:operator=platform-ops", entry)
		}
		if err := teams.CheckName(team); err != nil {
			return nil, fmt.Errorf("sso: team groups: %q: %q is not a team name", entry, team)
		}
		role, err := parseGroupRole(name)
		if err != nil || !role.AtLeast(auth.ReadOnly) {
			return nil, fmt.Errorf("sso: team groups: %q: the role in a team is admin, operator or readonly", entry)
		}
		for _, had := range out[group] {
			if had.Team == team && had.Role != role {
				return nil, fmt.Errorf("sso: team groups: group %q is given both %s and %s in team %s", group, had.Role, role, team)
			}
		}
		out[group] = append(out[group], TeamRole{Team: team, Role: role})
	}
	if len(out) == 0 {
		return nil, fmt.Errorf("sso: team groups: map at least one group to a team role, e.g. payments:operator=platform-ops")
	}
	return out, nil
}

// Teams returns the teams the mapping names, by name.
func (tg TeamGroups) Teams() []string {
	var names []string
	for _, roles := range tg {
		for _, r := range roles {
			names = append(names, r.Team)
		}
	}
	slices.Sort(names)
	return slices.Compact(names)
}

// RolesOf returns the role groups give in each team the mapping names: the
// highest of their groups', auth.Anonymous in a team none gives.
func (tg TeamGroups) RolesOf(groups []string) map[string]auth.Role {
	if len(tg) == 0 {
		return nil
	}
	out := map[string]auth.Role{}
	for _, team := range tg.Teams() {
		out[team] = auth.Anonymous
	}
	for _, g := range groups {
		for _, r := range tg[g] {
			out[r.Team] = max(out[r.Team], r.Role)
		}
	}
	return out
}

// scopes are the scopes asked for: openid and c's (default profile, email).
func (c Config) scopes() []string {
	s := c.Scopes
	if len(s) == 0 {
		s = []string{"profile", "email"}
	}
	if !slices.Contains(s, "openid") {
		s = append([]string{"openid"}, s...)
	}
	return s
}
