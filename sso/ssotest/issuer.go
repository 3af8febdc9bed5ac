// Package ssotest is a tiny OpenID Connect provider for tests: discovery,
// keys, an authorization endpoint that signs in whoever Issuer.User names
// without a login page, a token endpoint that checks the PKCE verifier, and
// an end-session endpoint. Tests of attacks change the next ID token
// (Issuer.Tamper) or sign it with a key the discovery document does not list.
package ssotest

import (
	"crypto/rand"
	"crypto/rsa"
	"crypto/sha256"
	"encoding/base64"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"net/url"
	"sync"
	"testing"
	"time"

	"github.com/go-jose/go-jose/v4"
	"github.com/stretchr/testify/require"
)

// ClientID and ClientSecret are the client the issuer knows.
const (
	ClientID     = "styrmin"
	ClientSecret = "styrmin-test-secret"
)

// User is who the authorization endpoint signs in.
type User struct {
	Subject, Username string
	Groups            []string
}

// Claims are the next ID token's claims, which Tamper may change.
type Claims map[string]any

// Issuer is a running test provider.
type Issuer struct {
	// URL is the issuer URL (its discovery document names it).
	URL string
	key *rsa.PrivateKey

	mu sync.Mutex
	// user is who signs in next.
	user User
	// tamper changes the claims of the next ID tokens; nil, none.
	tamper func(Claims)
	// forger, when set, signs the ID tokens instead of the published key.
	forger *rsa.PrivateKey
	// codes are the authorizations not yet exchanged.
	codes map[string]authorization
	// ended are the queries the end-session endpoint received.
	ended []url.Values
	// down makes every endpoint answer 503, as a provider that is down.
	down bool
}

// authorization is what the authorization endpoint granted for a code.
type authorization struct {
	user                     User
	nonce, challenge, method string
	redirect                 string
}

// New starts an issuer on a loopback port for the test.
func New(t testing.TB) *Issuer {
	t.Helper()
	key, err := rsa.GenerateKey(rand.Reader, 2048)
	require.NoError(t, err)
	iss := &Issuer{key: key, codes: map[string]authorization{}, user: User{Subject: "sub-ada", Username: "ada", Groups: []string{"operators"}}}
	mux := http.NewServeMux()
	mux.HandleFunc("GET /.well-known/openid-configuration", iss.discovery)
	mux.HandleFunc("GET /keys", iss.keys)
	mux.HandleFunc("GET /auth", iss.authorize)
	mux.HandleFunc("POST /token", iss.token)
	mux.HandleFunc("GET /logout", iss.logout)
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		iss.mu.Lock()
		down := iss.down
		iss.mu.Unlock()
		if down {
			http.Error(w, "down for maintenance", http.StatusServiceUnavailable)
			return
		}
		mux.ServeHTTP(w, r)
	}))
	t.Cleanup(srv.Close)
	iss.URL = srv.URL
	return iss
}

// Down makes every endpoint answer 503 Service Unavailable until Up.
func (iss *Issuer) Down() { iss.setDown(true) }

// Up undoes Down.
func (iss *Issuer) Up() { iss.setDown(false) }

func (iss *Issuer) setDown(down bool) {
	iss.mu.Lock()
	defer iss.mu.Unlock()
	iss.down = down
}

// SignInAs makes u the one the authorization endpoint signs in.
func (iss *Issuer) SignInAs(u User) {
	iss.mu.Lock()
	defer iss.mu.Unlock()
	iss.user = u
}

// Tamper changes the claims of every ID token from now on (nil: none).
func (iss *Issuer) Tamper(f func(Claims)) {
	iss.mu.Lock()
	defer iss.mu.Unlock()
	iss.tamper = f
}

// Forge signs every ID token from now on with a key of its own, not the
// one the issuer publishes.
func (iss *Issuer) Forge(t testing.TB) {
	t.Helper()
	key, err := rsa.GenerateKey(rand.Reader, 2048)
	require.NoError(t, err)
	iss.mu.Lock()
	defer iss.mu.Unlock()
	iss.forger = key
}

// Honest undoes Tamper and Forge: the next ID tokens are true and signed
// with the published key.
func (iss *Issuer) Honest() {
	iss.mu.Lock()
	defer iss.mu.Unlock()
	iss.tamper, iss.forger = nil, nil
}

// EndSessions returns the queries the end-session endpoint received.
func (iss *Issuer) EndSessions() []url.Values {
	iss.mu.Lock()
	defer iss.mu.Unlock()
	return append([]url.Values(nil), iss.ended...)
}

func (iss *Issuer) discovery(w http.ResponseWriter, _ *http.Request) {
	writeJSON(w, map[string]any{
		"issuer":                                iss.URL,
		"authorization_endpoint":                iss.URL + "/auth",
		"token_endpoint":                        iss.URL + "/token",
		"jwks_uri":                              iss.URL + "/keys",
		"end_session_endpoint":                  iss.URL + "/logout",
		"response_types_supported":              []string{"code"},
		"subject_types_supported":               []string{"public"},
		"id_token_signing_alg_values_supported": []string{"RS256"},
		"code_challenge_methods_supported":      []string{"S256"},
	})
}

func (iss *Issuer) keys(w http.ResponseWriter, _ *http.Request) {
	writeJSON(w, jose.JSONWebKeySet{Keys: []jose.JSONWebKey{{Key: &iss.key.PublicKey, KeyID: "test", Algorithm: "RS256", Use: "sig"}}})
}

// authorize signs in the issuer's user at once and sends the browser back
// with a code, as a provider does after its login page.
func (iss *Issuer) authorize(w http.ResponseWriter, r *http.Request) {
	q := r.URL.Query()
	if q.Get("client_id") != ClientID || q.Get("response_type") != "code" || q.Get("code_challenge") == "" {
		http.Error(w, "bad authorization request", http.StatusBadRequest)
		return
	}
	code := rand.Text()
	iss.mu.Lock()
	iss.codes[code] = authorization{user: iss.user, nonce: q.Get("nonce"), challenge: q.Get("code_challenge"),
		method: q.Get("code_challenge_method"), redirect: q.Get("redirect_uri")}
	iss.mu.Unlock()
	back, err := url.Parse(q.Get("redirect_uri"))
	if err != nil {
		http.Error(w, "bad redirect_uri", http.StatusBadRequest)
		return
	}
	bq := back.Query()
	bq.Set("code", code)
	bq.Set("state", q.Get("state"))
	back.RawQuery = bq.Encode()
	http.Redirect(w, r, back.String(), http.StatusFound)
}

// token exchanges a code, once, for an ID token, when the client's secret
// and the PKCE verifier match.
func (iss *Issuer) token(w http.ResponseWriter, r *http.Request) {
	id, secret, ok := r.BasicAuth()
	if !ok {
		id, secret = r.PostFormValue("client_id"), r.PostFormValue("client_secret")
	}
	iss.mu.Lock()
	a, found := iss.codes[r.PostFormValue("code")]
	delete(iss.codes, r.PostFormValue("code"))
	tamper, signer := iss.tamper, iss.key
	if iss.forger != nil {
		signer = iss.forger
	}
	iss.mu.Unlock()
	sum := sha256.Sum256([]byte(r.PostFormValue("code_verifier")))
	switch {
	case id != ClientID || secret != ClientSecret:
		http.Error(w, `{"error":"invalid_client"}`, http.StatusUnauthorized)
		return
	case !found || a.redirect != r.PostFormValue("redirect_uri") || a.method != "S256" ||
		base64.RawURLEncoding.EncodeToString(sum[:]) != a.challenge:
		http.Error(w, `{"error":"invalid_grant"}`, http.StatusBadRequest)
		return
	}
	now := time.Now()
	claims := Claims{
		"iss": iss.URL, "sub": a.user.Subject, "aud": ClientID, "iat": now.Unix(), "exp": now.Add(time.Hour).Unix(),
		"nonce": a.nonce, "preferred_username": a.user.Username, "groups": a.user.Groups,
	}
	if tamper != nil {
		tamper(claims)
	}
	raw, err := sign(signer, claims)
	if err != nil {
		http.Error(w, err.Error(), http.StatusInternalServerError)
		return
	}
	writeJSON(w, map[string]any{"access_token": rand.Text(), "token_type": "Bearer", "expires_in": 3600, "id_token": raw})
}

// logout records the end-session request and sends the browser back.
func (iss *Issuer) logout(w http.ResponseWriter, r *http.Request) {
	iss.mu.Lock()
	iss.ended = append(iss.ended, r.URL.Query())
	iss.mu.Unlock()
	if back := r.URL.Query().Get("post_logout_redirect_uri"); back != "" {
		http.Redirect(w, r, back, http.StatusFound)
		return
	}
	w.WriteHeader(http.StatusOK)
}

// sign is claims as a JWT signed by key (RS256, key id "test").
func sign(key *rsa.PrivateKey, claims Claims) (string, error) {
	signer, err := jose.NewSigner(jose.SigningKey{Algorithm: jose.RS256, Key: key}, (&jose.SignerOptions{}).WithType("JWT").WithHeader("kid", "test"))
	if err != nil {
		return "", err
	}
	payload, err := json.Marshal(claims)
	if err != nil {
		return "", err
	}
	jws, err := signer.Sign(payload)
	if err != nil {
		return "", err
	}
	return jws.CompactSerialize()
}

func writeJSON(w http.ResponseWriter, v any) {
	w.Header().Set("Content-Type", "application/json")
	_ = json.NewEncoder(w).Encode(v) //nolint:errcheck // a test server's client sees a broken answer
}
