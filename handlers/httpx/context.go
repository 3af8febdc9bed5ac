package httpx

import (
	"context"
	"fmt"

	"github.com/labstack/echo/v4"

	"github.com/styrmin/styrmin/auth"
	"github.com/styrmin/styrmin/deployment"
	"github.com/styrmin/styrmin/teams"
)

// Keys of the values the middleware leaves in the Echo context.
const (
	ctxSession    = "styrmin.session"
	ctxUser       = "styrmin.user"
	ctxCredential = "styrmin.credential"
	ctxOwnUser    = "styrmin.own-user"
)

// SetSession keeps the request's session for Session.
func SetSession(c echo.Context, sess *auth.Session) {
	c.Set(ctxSession, sess)
}

// SessionOrNil returns the request's session, or nil on a route without one.
func SessionOrNil(c echo.Context) *auth.Session {
	sess, _ := c.Get(ctxSession).(*auth.Session)
	return sess
}

// Session returns the request's session; a route without one (a bare route)
// asking for it is a programming error.
func Session(c echo.Context) *auth.Session {
	sess := SessionOrNil(c)
	if sess == nil {
		panic("httpx: no session on a bare route")
	}
	return sess
}

// SetUser records u as the user the request acts as.
func SetUser(c echo.Context, u *auth.User) {
	c.Set(ctxUser, u)
}

// ActAs has the request act as u, over the deployment or team it is about,
// keeping the signed-in user with their own role for OwnUser.
func ActAs(c echo.Context, u *auth.User) {
	if _, kept := c.Get(ctxOwnUser).(*auth.User); !kept {
		c.Set(ctxOwnUser, CurrentUser(c))
	}
	SetUser(c, u)
}

// OwnUser returns the signed-in user with their own role, which a team's
// role may have raised for the request (ActAs): what the pages of every
// team's changes (moving a deployment) ask.
func OwnUser(c echo.Context) *auth.User {
	if u, ok := c.Get(ctxOwnUser).(*auth.User); ok {
		return u
	}
	return CurrentUser(c)
}

// CurrentUser returns the signed-in user (or the API token's user), or nil.
func CurrentUser(c echo.Context) *auth.User {
	u, _ := c.Get(ctxUser).(*auth.User)
	return u
}

// SetCredential records cred, an API token's, as what the request acts with;
// its user is the request's user (CurrentUser).
func SetCredential(c echo.Context, cred *auth.Credential) {
	c.Set(ctxCredential, cred)
	SetUser(c, &cred.User)
}

// CredentialOrNil returns the API token's credential the request acts with,
// or nil on a route without one.
func CredentialOrNil(c echo.Context) *auth.Credential {
	cred, _ := c.Get(ctxCredential).(*auth.Credential)
	return cred
}

// apiCredentialKey is the context key under which the API token's credential
// travels from the Echo context into the context the REST API's strict
// handlers receive.
type apiCredentialKey struct{}

// WithAPICredential returns ctx carrying cred, what an API request acts with.
func WithAPICredential(ctx context.Context, cred *auth.Credential) context.Context {
	return context.WithValue(ctx, apiCredentialKey{}, cred)
}

// APICredential returns what an API request acts with: its token's user and
// expiry; the API token's middleware has put it into ctx (WithAPICredential).
func APICredential(ctx context.Context) auth.Credential {
	cred, ok := ctx.Value(apiCredentialKey{}).(*auth.Credential)
	if !ok {
		panic(fmt.Sprintf("httpx: API operation without a credential in its context (%T)", ctx.Value(apiCredentialKey{})))
	}
	return *cred
}

// APIUser returns the user an API request acts as (see APICredential).
func APIUser(ctx context.Context) auth.User {
	return APICredential(ctx).User
}

// teamAccessKey is the context key of the user's access by team that the
// permission check read (handlers.requireTeamRole).
type teamAccessKey struct{}

// WithTeamAccess returns ctx carrying a, the user's access by team as the
// permission check read it, so the handler does not read it again.
func WithTeamAccess(ctx context.Context, a teams.Access) context.Context {
	return context.WithValue(ctx, teamAccessKey{}, a)
}

// TeamAccess returns the access of u that the permission check put into ctx
// (WithTeamAccess); when it read none, u's own role sufficed for the route,
// and the access is that role alone (no team's role raises it there).
func TeamAccess(ctx context.Context, u auth.User) teams.Access {
	if a, ok := ctx.Value(teamAccessKey{}).(teams.Access); ok {
		return a
	}
	return teams.Access{User: u}
}

// clientAddressKey is the context key of the client's address in the
// context the REST API's strict handlers receive.
type clientAddressKey struct{}

// WithClientAddress returns ctx carrying the client's address (Echo's
// RealIP: the peer, or what a trusted proxy forwarded).
func WithClientAddress(ctx context.Context, address string) context.Context {
	return context.WithValue(ctx, clientAddressKey{}, address)
}

// ClientAddress returns the client's address that WithClientAddress put
// into ctx; "" when none did.
func ClientAddress(ctx context.Context) string {
	address, _ := ctx.Value(clientAddressKey{}).(string)
	return address
}

// ctxCaller is the key of the action primitive's caller in the Echo context.
const ctxCaller = "styrmin.caller"

// SetCaller records the action (its token's deployment, task and step) that
// calls an action primitive.
func SetCaller(c echo.Context, caller *deployment.Caller) {
	c.Set(ctxCaller, caller)
}

// CallerOrNil returns the action that calls an action primitive, nil when
// no action token was accepted.
func CallerOrNil(c echo.Context) *deployment.Caller {
	caller, _ := c.Get(ctxCaller).(*deployment.Caller)
	return caller
}

// Caller returns the action that calls an action primitive; the action
// token's middleware has set it.
func Caller(c echo.Context) *deployment.Caller {
	caller, ok := c.Get(ctxCaller).(*deployment.Caller)
	if !ok {
		panic("httpx: action primitive without a caller")
	}
	return caller
}
