package main

import (
	"fmt"
	"net/url"
	"os"
	"strings"

	"github.com/spf13/cobra"

	"github.com/styrmin/styrmin/auth"
	"github.com/styrmin/styrmin/sso"
)

// ssoConfig is single sign-on's configuration (--oidc-*, --local-sign-in).
type ssoConfig struct {
	issuer, clientID, clientSecret, redirectURL string
	name, scopes, groupsClaim, roleGroups       string
	teamGroups                                  string
	localSignin                                 string
}

// addSSOFlags adds the flags of ssoConfig to cmd.
func addSSOFlags(cmd *cobra.Command, cfg *ssoConfig) {
	f := cmd.Flags()
	f.StringVar(&cfg.issuer, "oidc-issuer", os.Getenv("STYRMIN_OIDC_ISSUER"),
		"issuer URL of the OpenID Connect provider people sign in with, such as https://login.example.com; empty: no single sign-on (env STYRMIN_OIDC_ISSUER)")
	f.StringVar(&cfg.clientID, "oidc-client-id", os.Getenv("STYRMIN_OIDC_CLIENT_ID"), "Styrmin's client id at the provider (env STYRMIN_OIDC_CLIENT_ID)")
	f.StringVar(&cfg.clientSecret, "oidc-client-secret", os.Getenv("STYRMIN_OIDC_CLIENT_SECRET"), "Styrmin's client secret at the provider (env STYRMIN_OIDC_CLIENT_SECRET)")
	addSecretFileFlag(cmd, "oidc-client-secret", "STYRMIN_OIDC_CLIENT_SECRET", &cfg.clientSecret)
	f.StringVar(&cfg.redirectURL, "oidc-redirect-url", os.Getenv("STYRMIN_OIDC_REDIRECT_URL"),
		"URL the provider sends people back to, registered with it; default --external-url (else --api-url) + "+sso.CallbackPath+" (env STYRMIN_OIDC_REDIRECT_URL)")
	f.StringVar(&cfg.name, "oidc-name", os.Getenv("STYRMIN_OIDC_NAME"), `provider's name on the sign-in button, "Sign in with <name>" (env STYRMIN_OIDC_NAME)`)
	f.StringVar(&cfg.scopes, "oidc-scopes", envOr("STYRMIN_OIDC_SCOPES", "openid,profile,email"),
		"comma-separated scopes to ask for; add groups for providers that send the groups claim only when asked, such as Dex (env STYRMIN_OIDC_SCOPES)")
	f.StringVar(&cfg.groupsClaim, "oidc-groups-claim", envOr("STYRMIN_OIDC_GROUPS_CLAIM", "groups"), "ID token claim that lists the user's groups (env STYRMIN_OIDC_GROUPS_CLAIM)")
	f.StringVar(&cfg.roleGroups, "oidc-role-groups", os.Getenv("STYRMIN_OIDC_ROLE_GROUPS"),
		"groups that give each role, as admin=GROUP,operator=GROUP,readonly=GROUP (a role may be named more than once); a user gets the highest, and no access with none (env STYRMIN_OIDC_ROLE_GROUPS)")
	f.StringVar(&cfg.teamGroups, "oidc-team-groups", os.Getenv("STYRMIN_OIDC_TEAM_GROUPS"),
		"groups that give roles in teams, as TEAM:ROLE=GROUP,... (payments:operator=platform-ops; ROLE admin, operator or readonly): at every sign-in the user's memberships of these teams follow their groups; a user whose groups give team roles only is a member (env STYRMIN_OIDC_TEAM_GROUPS)")
	f.StringVar(&cfg.localSignin, "local-sign-in", envOr("STYRMIN_LOCAL_SIGN_IN", string(auth.LocalSigninAll)),
		"who may sign in with a Styrmin password: all, or admins-only (break-glass admins; everyone else uses single sign-on) (env STYRMIN_LOCAL_SIGN_IN)")
}

// config is the provider's configuration, nil without an issuer; Styrmin's
// URL (for the redirect URL and the way back after signing out at the
// provider) is external, else own.
func (cfg ssoConfig) config(external *url.URL, own string) (*sso.Config, error) {
	if cfg.issuer == "" {
		if cfg.clientID != "" || cfg.roleGroups != "" || cfg.teamGroups != "" {
			return nil, fmt.Errorf("--oidc-client-id, --oidc-role-groups or --oidc-team-groups is set without --oidc-issuer (STYRMIN_OIDC_ISSUER)")
		}
		return nil, nil
	}
	var roles sso.RoleGroups
	var teams sso.TeamGroups
	var err error
	if cfg.roleGroups != "" || cfg.teamGroups == "" {
		if roles, err = sso.ParseRoleGroups(cfg.roleGroups); err != nil {
			return nil, fmt.Errorf("--oidc-role-groups (STYRMIN_OIDC_ROLE_GROUPS): %w", err)
		}
	}
	if cfg.teamGroups != "" {
		if teams, err = sso.ParseTeamGroups(cfg.teamGroups); err != nil {
			return nil, fmt.Errorf("--oidc-team-groups (STYRMIN_OIDC_TEAM_GROUPS): %w", err)
		}
	}
	base := strings.TrimRight(own, "/")
	if external != nil {
		base = strings.TrimRight(external.String(), "/")
	}
	redirect := cfg.redirectURL
	if redirect == "" {
		redirect = base + sso.CallbackPath
	}
	var scopes []string
	for s := range strings.SplitSeq(cfg.scopes, ",") {
		if s = strings.TrimSpace(s); s != "" {
			scopes = append(scopes, s)
		}
	}
	return &sso.Config{
		Issuer: cfg.issuer, ClientID: cfg.clientID, ClientSecret: cfg.clientSecret, RedirectURL: redirect,
		Name: cfg.name, Scopes: scopes, GroupsClaim: cfg.groupsClaim, Roles: roles, Teams: teams, PostLogoutURL: base + "/signin",
	}, nil
}
