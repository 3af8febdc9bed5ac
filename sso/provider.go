package sso

import (
	"context"
	"crypto/rand"
	"crypto/sha256"
	"crypto/subtle"
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/coreos/go-oidc/v3/oidc"
	"github.com/jackc/pgx/v5"
	"golang.org/x/oauth2"

	"github.com/styrmin/styrmin"
	"github.com/styrmin/styrmin/auth"
	"github.com/styrmin/styrmin/db"
	"github.com/styrmin/styrmin/version"
)

// LoginLifetime is how long a sign-in may take at the provider: a state
// older than this is refused.
const LoginLifetime = 10 * time.Minute

// The bounds of the sign-ins under way (started, not yet answered, not
// expired), which anyone may start: one address may hold
// MaxLoginsPerAddress of them, and everyone together MaxLogins, so that
// starting sign-ins without end fills no table.
const (
	MaxLoginsPerAddress = 20
	MaxLogins           = 10000
)

// requestTimeout bounds each call to the provider (discovery, keys, token).
const requestTimeout = 15 * time.Second

// Provider is Styrmin's client of one OpenID Connect provider. It reads the
// provider's discovery document when first needed and keeps it, so a
// provider that does not answer when Styrmin starts stops nothing but
// single sign-on, until it answers: local sign-in (break-glass) works.
type Provider struct {
	cfg    Config
	client *http.Client
	q      *db.Queries
	now    func() time.Time

	// mu serializes discovery; found is its result once it succeeded.
	mu    sync.Mutex
	found atomic.Pointer[discovered]
}

// discovered is what the provider's discovery document gives.
type discovered struct {
	oauth    oauth2.Config
	verifier *oidc.IDTokenVerifier
	// endSession is the provider's end_session_endpoint, parsed once; nil
	// when it has none (or one that does not parse).
	endSession *url.URL
}

// New returns the client of the provider cfg names, once cfg is complete;
// the sign-ins under way are kept on conn. It does not reach the provider
// (Discover does).
func New(cfg Config, conn db.DBTX) (*Provider, error) {
	switch {
	case cfg.Issuer == "":
		return nil, errors.New("sso: the issuer URL is empty (--oidc-issuer)")
	case cfg.ClientID == "":
		return nil, errors.New("sso: the client id is empty (--oidc-client-id)")
	case cfg.RedirectURL == "":
		return nil, errors.New("sso: the redirect URL is empty: set --oidc-redirect-url or --external-url")
	case len(cfg.Roles) == 0 && len(cfg.Teams) == 0:
		return nil, errors.New("sso: no group maps to a role (--oidc-role-groups) or a team role (--oidc-team-groups)")
	}
	if cfg.GroupsClaim == "" {
		cfg.GroupsClaim = "groups"
	}
	if cfg.Name == "" {
		cfg.Name = "single sign-on"
	}
	return &Provider{cfg: cfg, client: &http.Client{Timeout: requestTimeout, Transport: version.Transport(nil)}, q: db.New(conn), now: time.Now}, nil
}

// Discover reads the provider's discovery document (which must name the
// issuer exactly) unless it was read before. Its error (EUNAVAILABLE) says
// the provider does not answer; the next call tries again.
func (p *Provider) Discover(ctx context.Context) error {
	_, err := p.discover(ctx)
	return err
}

func (p *Provider) discover(ctx context.Context) (*discovered, error) {
	if d := p.found.Load(); d != nil {
		return d, nil
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	if d := p.found.Load(); d != nil {
		return d, nil
	}
	unavailable := func(err error) error {
		return styrmin.Errorf(styrmin.EUNAVAILABLE, "The identity provider at %s does not answer as one (%v). Try again in a moment, or sign in with a Styrmin password if you have one.", p.cfg.Issuer, err)
	}
	provider, err := oidc.NewProvider(oidc.ClientContext(ctx, p.client), p.cfg.Issuer)
	if err != nil {
		return nil, unavailable(err)
	}
	var extra struct {
		EndSession string `json:"end_session_endpoint"`
	}
	if err := provider.Claims(&extra); err != nil {
		return nil, unavailable(err)
	}
	d := &discovered{
		oauth: oauth2.Config{ClientID: p.cfg.ClientID, ClientSecret: p.cfg.ClientSecret, Endpoint: provider.Endpoint(),
			RedirectURL: p.cfg.RedirectURL, Scopes: p.cfg.scopes()},
		// The keys are fetched when a token needs them, by whichever
		// request that is: not bound to the request that discovered.
		verifier:   provider.VerifierContext(oidc.ClientContext(context.Background(), p.client), &oidc.Config{ClientID: p.cfg.ClientID}),
		endSession: parseEndpoint(extra.EndSession),
	}
	p.found.Store(d)
	return d, nil
}

// Name is the provider's name on the sign-in page.
func (p *Provider) Name() string { return p.cfg.Name }

// Begin starts a sign-in for the browser whose CSRF token is browser, from
// address, to go on to next afterwards: it keeps a new state, nonce and PKCE
// verifier and returns the provider's URL to send the browser to. Past
// MaxLoginsPerAddress sign-ins under way from address (its IPv6 /64), or
// MaxLogins from everyone, it refuses (ETHROTTLED) until some end.
func (p *Provider) Begin(ctx context.Context, browser, address, next string) (string, error) {
	d, err := p.discover(ctx)
	if err != nil {
		return "", err
	}
	address = auth.ThrottleAddress(address)
	under, err := p.q.CountOIDCLogins(ctx, db.CountOIDCLoginsParams{Address: address, Now: p.now()})
	if err != nil {
		return "", db.Classify(fmt.Errorf("sso: count sign-ins under way: %w", err))
	}
	if under.FromAddress >= MaxLoginsPerAddress || under.Total >= MaxLogins {
		return "", styrmin.Errorf(styrmin.ETHROTTLED, "Too many single sign-ons are under way; finish the one you started, or try again in %d minutes.", int(LoginLifetime.Minutes()))
	}
	state, nonce, verifier := rand.Text(), rand.Text(), oauth2.GenerateVerifier()
	err = p.q.CreateOIDCLogin(ctx, db.CreateOIDCLoginParams{
		StateHash: hash(state), BrowserHash: hash(browser), Address: address, Nonce: nonce, CodeVerifier: verifier,
		Next: next, ExpiresAt: p.now().Add(LoginLifetime),
	})
	if err != nil {
		return "", db.Classify(fmt.Errorf("sso: keep sign-in: %w", err))
	}
	return d.oauth.AuthCodeURL(state, oidc.Nonce(nonce), oauth2.S256ChallengeOption(verifier)), nil
}

// Result is a finished sign-in at the provider.
type Result struct {
	// Identity is who signed in; its Role is auth.Anonymous when none of
	// their groups maps to a role or a team role, auth.Member when their
	// groups give team roles only.
	Identity auth.Identity
	// Teams is the role their groups give in each team the mapping names
	// (Config.Teams), auth.Anonymous where they give none: what the user's
	// memberships of those teams become. Nil without a team mapping.
	Teams map[string]auth.Role
	// IDToken is the ID token as received, for the end-session endpoint.
	IDToken string
	// Next is where the browser was going.
	Next string
}

// refused is the error of a sign-in that must not go on; every one leaves
// nobody signed in.
func refused(format string, args ...any) error {
	return styrmin.Errorf(styrmin.EUNAUTHORIZED, "Single sign-on failed: "+format, args...)
}

// Finish checks the provider's answer, query, in the browser whose CSRF
// token is browser: the state must be one Begin kept for this browser, not
// used before and not expired; the code is exchanged with its PKCE verifier;
// the ID token must be signed by the provider's keys, name its issuer, this
// client as audience and the nonce of the state, and not have expired.
func (p *Provider) Finish(ctx context.Context, browser string, query url.Values) (Result, error) {
	state := query.Get("state")
	if state == "" {
		return Result{}, refused("the answer has no state; start again from the sign-in page.")
	}
	login, err := p.q.TakeOIDCLogin(ctx, hash(state))
	if errors.Is(err, pgx.ErrNoRows) {
		return Result{}, refused("this sign-in was used already or is unknown; start again from the sign-in page.")
	} else if err != nil {
		return Result{}, db.Classify(fmt.Errorf("sso: take sign-in: %w", err))
	}
	if !p.now().Before(login.ExpiresAt) {
		return Result{}, refused("this sign-in took longer than %s; start again from the sign-in page.", LoginLifetime)
	}
	if subtle.ConstantTimeCompare(login.BrowserHash, hash(browser)) != 1 {
		return Result{}, refused("this sign-in was started in another browser; start again from the sign-in page.")
	}
	if e := query.Get("error"); e != "" {
		return Result{}, refused("the identity provider answered %s: %s", e, query.Get("error_description"))
	}
	code := query.Get("code")
	if code == "" {
		return Result{}, refused("the answer has no authorization code.")
	}
	d, err := p.discover(ctx)
	if err != nil {
		return Result{}, err
	}
	ctx = oidc.ClientContext(ctx, p.client)
	token, err := d.oauth.Exchange(ctx, code, oauth2.VerifierOption(login.CodeVerifier))
	if err != nil {
		return Result{}, refused("the identity provider did not exchange the code: %v", err)
	}
	raw, _ := token.Extra("id_token").(string)
	if raw == "" {
		return Result{}, refused("the identity provider sent no ID token.")
	}
	idToken, err := d.verifier.Verify(ctx, raw)
	if err != nil {
		return Result{}, refused("the ID token is not valid: %v", err)
	}
	if subtle.ConstantTimeCompare([]byte(idToken.Nonce), []byte(login.Nonce)) != 1 {
		return Result{}, refused("the ID token's nonce is not this sign-in's.")
	}
	id, teams, err := p.identityOf(idToken)
	if err != nil {
		return Result{}, err
	}
	return Result{Identity: id, Teams: teams, IDToken: raw, Next: login.Next}, nil
}

// identityOf reads who the verified token names and what their groups
// give: a role of their own, and a role in each team the mapping names.
func (p *Provider) identityOf(t *oidc.IDToken) (auth.Identity, map[string]auth.Role, error) {
	var claims map[string]any
	if err := t.Claims(&claims); err != nil {
		return auth.Identity{}, nil, refused("the ID token's claims do not read: %v", err)
	}
	name, _ := claims["preferred_username"].(string)
	if email, _ := claims["email"].(string); name == "" && email != "" {
		name, _, _ = strings.Cut(email, "@")
	}
	if name == "" {
		name, _ = claims["name"].(string)
	}
	groups := groupsOf(claims[p.cfg.GroupsClaim])
	role, teams := p.cfg.Roles.RoleOf(groups), p.cfg.Teams.RolesOf(groups)
	for _, r := range teams {
		if r != auth.Anonymous {
			role = max(role, auth.Member)
		}
	}
	return auth.Identity{Issuer: t.Issuer, Subject: t.Subject, Username: name, Role: role}, teams, nil
}

// groupsOf reads a groups claim: a list of strings, or one string.
func groupsOf(v any) []string {
	switch g := v.(type) {
	case string:
		return []string{g}
	case []any:
		out := make([]string, 0, len(g))
		for _, x := range g {
			if s, ok := x.(string); ok {
				out = append(out, s)
			}
		}
		return out
	}
	return nil
}

// parseEndpoint is endpoint parsed; nil when it is empty or does not parse.
func parseEndpoint(endpoint string) *url.URL {
	u, err := url.Parse(endpoint)
	if endpoint == "" || err != nil {
		return nil
	}
	return u
}

// endSession is the provider's end-session endpoint; nil when it has none,
// or was not discovered yet (then nobody signed in through it).
func (p *Provider) endSession() *url.URL {
	if d := p.found.Load(); d != nil {
		return d.endSession
	}
	return nil
}

// EndSessionURL is where to send a browser signing out of a session begun
// with idToken: the provider's end-session endpoint with the token as hint
// and Styrmin's sign-in page to come back to; empty when the provider has
// no such endpoint.
func (p *Provider) EndSessionURL(idToken string) string {
	endSession := p.endSession()
	if endSession == nil {
		return ""
	}
	u := *endSession
	q := u.Query()
	if idToken != "" {
		q.Set("id_token_hint", idToken)
	}
	q.Set("client_id", p.cfg.ClientID)
	if p.cfg.PostLogoutURL != "" {
		q.Set("post_logout_redirect_uri", p.cfg.PostLogoutURL)
	}
	u.RawQuery = q.Encode()
	return u.String()
}

// EndSessionOrigin is the scheme and host of the end-session endpoint, which
// the sign-out form may be redirected to (Content-Security-Policy
// form-action); empty when there is none.
func (p *Provider) EndSessionOrigin() string {
	u := p.endSession()
	if u == nil {
		return ""
	}
	return u.Scheme + "://" + u.Host
}

// ForgetExpired deletes sign-ins that were never finished.
func (p *Provider) ForgetExpired(ctx context.Context) error {
	if err := p.q.DeleteExpiredOIDCLogins(ctx, p.now()); err != nil {
		return fmt.Errorf("sso: forget expired sign-ins: %w", err)
	}
	return nil
}

func hash(s string) []byte {
	h := sha256.Sum256([]byte(s))
	return h[:]
}
