package web

import (
	"context"
	"net/http"
	"net/url"
	"strings"

	"github.com/labstack/echo/v4"

	"github.com/styrmin/styrmin"
	"github.com/styrmin/styrmin/audit"
	"github.com/styrmin/styrmin/auth"
	"github.com/styrmin/styrmin/handlers/httpx"
	"github.com/styrmin/styrmin/sso"
	"github.com/styrmin/styrmin/teams"
)

// SingleSignOn is the OpenID Connect provider people sign in through (sso.Provider).
type SingleSignOn interface {
	// Name is the provider's name on the sign-in page.
	Name() string
	// Begin starts a sign-in of browser (its CSRF token) from address.
	Begin(ctx context.Context, browser, address, next string) (string, error)
	Finish(ctx context.Context, browser string, query url.Values) (sso.Result, error)
	// EndSessionURL is where signing out sends the browser; empty: nowhere.
	EndSessionURL(idToken string) string
	// EndSessionOrigin is that URL's origin, which the sign-out form may
	// be redirected to; empty when there is none.
	EndSessionOrigin() string
}

var _ SingleSignOn = (*sso.Provider)(nil)

// identitySigner signs in a person the provider vouched for.
type identitySigner interface {
	SignInIdentity(ctx context.Context, id auth.Identity) (auth.User, error)
}

// teamFollower sets a user's memberships of the teams single sign-on maps
// groups to (teams.Store).
type teamFollower interface {
	FollowGroups(ctx context.Context, userID int64, roles map[string]auth.Role) (changed, unknown []string, err error)
}

var _ teamFollower = (*teams.Store)(nil)

// identitySessionStarter starts a session and keeps its ID token.
type identitySessionStarter interface {
	sessionStarter
	SetIDToken(ctx context.Context, sess *auth.Session, idToken string) error
}

// errNoSSO answers the single sign-on routes of a server without a provider.
var errNoSSO = styrmin.Errorf(styrmin.ENOTFOUND, "Single sign-on is not configured on this server; sign in with a username and password.")

// ssoStartURL is the link that signs in through the provider and goes on to next.
func ssoStartURL(next string) string {
	if next == "/" {
		return sso.StartPath
	}
	return sso.StartPath + "?next=" + url.QueryEscape(next)
}

// SigninOIDCStart sends the browser to the identity provider, bound to this
// browser's session; a signed-in user goes on at once.
func SigninOIDCStart(provider SingleSignOn) echo.HandlerFunc {
	return func(c echo.Context) error {
		if provider == nil {
			return errNoSSO
		}
		next := safeNext(c.QueryParam("next"))
		if httpx.CurrentUser(c) != nil {
			return c.Redirect(http.StatusSeeOther, next)
		}
		target, err := provider.Begin(c.Request().Context(), httpx.Session(c).CSRF, c.RealIP(), next)
		if err != nil {
			return err
		}
		return c.Redirect(http.StatusSeeOther, target)
	}
}

// SigninOIDCCallback takes the provider's answer: once it checks out and
// the person's groups give them a role, they are signed in (their user
// created on first sign-in, their role and their memberships of the teams
// the mapping names set from their groups every time); otherwise the page
// says why and nobody is signed in. The sign-in's audit entry lists the
// memberships changed (detail teams) and the mapped teams that do not
// exist (detail unknown_teams).
func SigninOIDCCallback(provider SingleSignOn, users identitySigner, sessions identitySessionStarter, teams *teams.Store) echo.HandlerFunc {
	return func(c echo.Context) error {
		if provider == nil {
			return errNoSSO
		}
		ctx := c.Request().Context()
		res, err := provider.Finish(ctx, httpx.Session(c).CSRF, c.QueryParams())
		if err != nil {
			return err
		}
		audit.NameTarget(ctx, res.Identity.Username, map[string]string{"via": "oidc", "issuer": res.Identity.Issuer})
		if res.Identity.Role == auth.Anonymous {
			return styrmin.Errorf(styrmin.EFORBIDDEN, "You signed in at %s as %s, but none of your groups has access to Styrmin. Ask an admin to add you to one of Styrmin's groups.",
				provider.Name(), res.Identity.Username)
		}
		u, err := users.SignInIdentity(ctx, res.Identity)
		if err != nil {
			return err
		}
		audit.NameTarget(ctx, u.Username, nil)
		if len(res.Teams) > 0 && teams != nil {
			if err := followGroups(ctx, teams, u, res.Teams); err != nil {
				return err
			}
		}
		sess := httpx.Session(c)
		if err := sessions.Start(ctx, sess, u, c.Request().UserAgent(), c.RealIP()); err != nil {
			return err
		}
		if err := sessions.SetIDToken(ctx, sess, res.IDToken); err != nil {
			return err
		}
		return c.Redirect(http.StatusSeeOther, res.Next)
	}
}

// followGroups sets u's memberships of the mapped teams to what their
// groups give, noting the changes in the sign-in's audit entry.
func followGroups(ctx context.Context, teams teamFollower, u auth.User, roles map[string]auth.Role) error {
	changed, unknown, err := teams.FollowGroups(ctx, u.ID, roles)
	if err != nil {
		return err
	}
	if len(changed) > 0 {
		audit.Note(ctx, "teams", strings.Join(changed, ", "))
	}
	if len(unknown) > 0 {
		audit.Note(ctx, "unknown_teams", strings.Join(unknown, ", "))
	}
	return nil
}
