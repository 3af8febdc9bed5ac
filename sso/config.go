// Package sso signs people in through an OpenID Connect provider: the
// authorization code flow with PKCE, a state that is good once and only in
// the browser that started the sign-in, a nonce, and the ID token verified
// against the provider's keys (issuer, audience, expiry); the groups claim
// maps to a Styrmin role.
package sso

import (
	"fmt"
	"slices"
	"strings"

	"github.com/styrmin/styrmin/auth"
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
		if name == "readonly" {
			name = auth.ReadOnly.String()
		}
		role, err := auth.ParseRole(name)
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
