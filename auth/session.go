package auth

import (
	"context"
	"crypto/rand"
	"crypto/sha256"
	"crypto/sha512"
	"crypto/subtle"
	"errors"
	"fmt"
	"net/http"
	"strings"
	"time"

	"github.com/gorilla/securecookie"
	"github.com/gorilla/sessions"
	"github.com/jackc/pgx/v5"

	"github.com/styrmin/styrmin/audit"
	"github.com/styrmin/styrmin/db"
	"github.com/styrmin/styrmin/lru"
)

// SessionCookie is the name of the session cookie.
const SessionCookie = "styrmin_session"

// A session ends after IdleTimeout without a request, and AbsoluteLifetime
// after sign-in however busy it is.
const (
	IdleTimeout      = 12 * time.Hour
	AbsoluteLifetime = 7 * 24 * time.Hour
)

// MinSessionKeyLength is the shortest STYRMIN_SESSION_KEY accepted.
const MinSessionKeyLength = 32

// sessionKeySetting names the generated session key in the settings table.
const sessionKeySetting = "session_key"

// Session is what the session cookie carries: the id of a server-side
// session when someone is signed in, the CSRF token and the messages to show
// on the next page.
type Session struct {
	// CSRF is the token every state-changing request must carry.
	CSRF string
	// token is the random session id; only its SHA-256 is stored. Empty when
	// nobody is signed in.
	token string
	// id and userID name the server-side session once Authenticate found it live.
	id, userID int64
	// flashes are "kind\x00message" pairs, shown once.
	flashes []string
	// inCookie is what the request's cookie held, if it was valid: Save
	// need not send the same again.
	inCookie *cookieContent
}

// Flash is a one-time message for the next page.
type Flash struct {
	Kind    string
	Message string
}

// AddFlash queues a message for the next page.
func (sess *Session) AddFlash(kind, message string) {
	sess.flashes = append(sess.flashes, kind+"\x00"+message)
}

// TakeFlashes returns the queued messages and forgets them.
func (sess *Session) TakeFlashes() []Flash {
	out := make([]Flash, 0, len(sess.flashes))
	for _, f := range sess.flashes {
		kind, msg, _ := strings.Cut(f, "\x00")
		out = append(out, Flash{Kind: kind, Message: msg})
	}
	sess.flashes = nil
	return out
}

// Sessions keeps sessions: the session id, CSRF token and flashes in a signed
// and encrypted cookie, who is signed in and until when in the sessions table.
type Sessions struct {
	store *sessions.CookieStore
	conn  audit.Conn
	q     *db.Queries
	now   func() time.Time
	// cache remembers live sessions while database notifications are
	// received (see ListenOn); without them every lookup reads PostgreSQL.
	cache *credentialCache
	// cookies remembers the content of cookies decoded recently.
	cookies *cookieCache
	// secure marks every session cookie Secure (SecureCookies).
	secure bool
}

// SecureCookies marks every session cookie Secure, also on requests that
// reach the server over plain HTTP: the server sits behind a proxy whose
// external URL is https. Call it when wiring, before serving.
func (s *Sessions) SecureCookies() {
	s.secure = true
}

// NewSessions returns the session keeper on conn, with cookies keyed by secret
// (at least 32 bytes).
func NewSessions(secret []byte, conn audit.Conn) (*Sessions, error) {
	if len(secret) < MinSessionKeyLength {
		return nil, fmt.Errorf("auth: session key has %d bytes; it needs at least %d", len(secret), MinSessionKeyLength)
	}
	hashKey := sha512.Sum512(append([]byte("styrmin session signing\x00"), secret...))
	blockKey := sha256.Sum256(append([]byte("styrmin session encryption\x00"), secret...))
	store := sessions.NewCookieStore(hashKey[:], blockKey[:])
	store.Options = &sessions.Options{
		Path:     "/",
		MaxAge:   int(AbsoluteLifetime.Seconds()),
		HttpOnly: true,
		SameSite: http.SameSiteLaxMode,
	}
	store.MaxAge(int(AbsoluteLifetime.Seconds()))
	for _, codec := range store.Codecs {
		if sc, ok := codec.(*securecookie.SecureCookie); ok {
			sc.SetSerializer(cookieSerializer{})
		}
	}
	return &Sessions{store: store, conn: conn, q: db.New(conn), now: time.Now, cache: newCredentialCache(notifySession, IdleTimeout, lastSeenPrecision, credentialCacheSize, credentialCacheTTL),
		cookies: newCookieCache(cookieCacheSize, cookieCacheTTL)}, nil
}

// CacheStats returns the lookups of the live sessions kept in memory: a
// hit authenticated a request without asking PostgreSQL.
func (s *Sessions) CacheStats() lru.Stats { return s.cache.lookups() }

// ListenOn has l's notifications of ended sessions and changed users reach
// s, which then keeps live sessions in memory while l is listening: a
// signed-in request no longer waits for PostgreSQL, and a sign-out, a disabled
// user, a new password, a new role or an ended session, made by any server
// on the database, still takes effect at once.
func (s *Sessions) ListenOn(l *db.Listener) {
	l.Subscribe(db.SessionsChannel, s.cache)
}

// SessionSecret returns the secret that keys session cookies: fromEnv when
// given (STYRMIN_SESSION_KEY), else a random secret generated on first use and
// kept in the database, so every server and every restart shares it.
func SessionSecret(ctx context.Context, q *db.Queries, fromEnv string) ([]byte, error) {
	if fromEnv != "" {
		if len(fromEnv) < MinSessionKeyLength {
			return nil, fmt.Errorf("auth: STYRMIN_SESSION_KEY has %d characters; use at least %d random ones (e.g. `openssl rand -hex 32`)", len(fromEnv), MinSessionKeyLength)
		}
		return []byte(fromEnv), nil
	}
	if err := q.InsertSettingIfAbsent(ctx, db.InsertSettingIfAbsentParams{Name: sessionKeySetting, Value: []byte(rand.Text() + rand.Text())}); err != nil {
		return nil, fmt.Errorf("auth: store session key: %w", err)
	}
	secret, err := q.GetSetting(ctx, sessionKeySetting)
	if errors.Is(err, pgx.ErrNoRows) {
		return nil, errors.New("auth: session key vanished from the settings table")
	} else if err != nil {
		return nil, fmt.Errorf("auth: read session key: %w", err)
	}
	return secret, nil
}

// Load reads the request's session cookie. A missing or forged cookie gives a
// new anonymous session; every session has a CSRF token. Whether the session
// is still live is for Authenticate to say.
func (s *Sessions) Load(r *http.Request) *Session {
	sess := &Session{}
	cookie, _ := r.Cookie(SessionCookie)
	if cookie != nil {
		if c, ok := s.cookies.get(cookie.Value, s.now()); ok {
			sess.token, sess.CSRF, sess.inCookie = c.SID, c.CSRF, &c
			return sess
		}
	}
	raw, err := s.store.New(r, SessionCookie)
	if err == nil {
		sess.token, _ = raw.Values["sid"].(string)
		sess.CSRF, _ = raw.Values["csrf"].(string)
		sess.flashes, _ = raw.Values["flash"].([]string)
		sess.inCookie = &cookieContent{SID: sess.token, CSRF: sess.CSRF, Flash: sess.flashes}
		if cookie != nil && !raw.IsNew && len(sess.flashes) == 0 {
			s.cookies.put(cookie.Value, *sess.inCookie, s.now())
		}
	}
	if sess.CSRF == "" {
		sess.CSRF = rand.Text()
	}
	return sess
}

// Save writes the session into the response's cookie, unless the request's
// cookie holds the same already: a cookie is written when someone signs in or
// out, when the CSRF token is new and while there are flashes, not on every
// request (it lives as long as a session may: AbsoluteLifetime). The cookie is
// Secure when the request came over TLS, and always once SecureCookies was called.
func (s *Sessions) Save(w http.ResponseWriter, r *http.Request, sess *Session) error {
	if c := sess.inCookie; c != nil && c.SID == sess.token && c.CSRF == sess.CSRF && len(c.Flash) == 0 && len(sess.flashes) == 0 {
		return nil
	}
	raw := sessions.NewSession(s.store, SessionCookie)
	opts := *s.store.Options
	opts.Secure = s.secure || r.TLS != nil
	raw.Options = &opts
	if sess.token != "" {
		raw.Values["sid"] = sess.token
	}
	raw.Values["csrf"] = sess.CSRF
	if len(sess.flashes) > 0 {
		raw.Values["flash"] = sess.flashes
	}
	if err := s.store.Save(r, w, raw); err != nil {
		return fmt.Errorf("auth: save session: %w", err)
	}
	return nil
}

// CheckCSRF reports whether token is the session's CSRF token.
func (sess *Session) CheckCSRF(token string) bool {
	return token != "" && subtle.ConstantTimeCompare([]byte(token), []byte(sess.CSRF)) == 1
}
