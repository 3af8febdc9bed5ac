package auth

import (
	"context"
	"crypto/rand"
	"crypto/sha256"
	"errors"
	"fmt"
	"strconv"
	"strings"
	"time"
	"unicode"

	"github.com/jackc/pgx/v5"

	"github.com/styrmin/styrmin"
	"github.com/styrmin/styrmin/audit"
	"github.com/styrmin/styrmin/db"
)

// lastSeenPrecision is how stale a session's last-seen time may get: it is
// written at most once per this interval, not on every request.
const lastSeenPrecision = time.Minute

// maxUserAgentLength bounds the user agent kept with a session, in characters.
const maxUserAgentLength = 256

// SessionInfo describes one signed-in session for the sessions page.
type SessionInfo struct {
	ID         int64
	CreatedAt  time.Time
	LastSeenAt time.Time
	ExpiresAt  time.Time
	UserAgent  string
	Address    string
	// Current marks the session the list was asked from.
	Current bool
}

// Start signs the user in on sess: it ends the session's previous server-side
// session, if any, and starts a new one with a new id and CSRF token, so that
// an id planted before sign-in is worthless after it.
//
// The sign-in is recorded with the new session (audit.Change), naming the user.
func (s *Sessions) Start(ctx context.Context, sess *Session, u User, userAgent, address string) error {
	token, now := rand.Text(), s.now()
	var id int64
	err := audit.Change(ctx, s.conn, func(tx pgx.Tx) (string, error) {
		q := s.q.WithTx(tx)
		if err := s.end(ctx, q, sess); err != nil {
			return "", err
		}
		var err error
		id, err = q.CreateSession(ctx, db.CreateSessionParams{
			TokenHash: tokenHash(token),
			UserID:    u.ID,
			Now:       now,
			ExpiresAt: now.Add(AbsoluteLifetime),
			UserAgent: cleanUserAgent(userAgent),
			Address:   address,
		})
		if err != nil {
			return "", fmt.Errorf("auth: start session of %s: %w", u.Username, err)
		}
		return u.Username, nil
	})
	if err != nil {
		return err
	}
	sess.token, sess.id, sess.userID, sess.CSRF = token, id, u.ID, rand.Text()
	return nil
}

// Authenticate returns the user signed in on sess and whether there is one.
// A session that was ended, has been idle for IdleTimeout, is older than
// AbsoluteLifetime or whose user is disabled becomes anonymous, with a new
// CSRF token. A session found live is remembered (see ListenOn), so the next
// request of the same session is answered from memory.
func (s *Sessions) Authenticate(ctx context.Context, sess *Session) (User, bool, error) {
	if sess.token == "" {
		return User{}, false, nil
	}
	now, hash := s.now(), sha256.Sum256([]byte(sess.token))
	if cc, touch, ok := s.cache.get(hash, now); ok {
		if touch {
			if err := s.q.TouchSession(ctx, db.TouchSessionParams{ID: cc.id, Now: now}); err != nil {
				return User{}, false, fmt.Errorf("auth: touch session: %w", err)
			}
		}
		sess.id, sess.userID = cc.id, cc.user.ID
		return cc.user, true, nil
	}
	epoch, caching := s.cache.begin()
	row, err := s.q.GetLiveSession(ctx, db.GetLiveSessionParams{TokenHash: hash[:], IdleSince: now.Add(-IdleTimeout), Now: now})
	if errors.Is(err, pgx.ErrNoRows) {
		sess.anonymous()
		return User{}, false, nil
	} else if err != nil {
		return User{}, false, fmt.Errorf("auth: look up session: %w", err)
	}
	lastSeen := row.Session.LastSeenAt
	if now.Sub(lastSeen) >= lastSeenPrecision {
		if err := s.q.TouchSession(ctx, db.TouchSessionParams{ID: row.Session.ID, Now: now}); err != nil {
			return User{}, false, fmt.Errorf("auth: touch session: %w", err)
		}
		lastSeen = now
	}
	u := userFromRow(row.User)
	if caching {
		s.cache.put(epoch, now, cachedCredential{hash: hash, id: row.Session.ID, user: u, lastUsed: lastSeen, expires: row.Session.ExpiresAt})
	}
	sess.id, sess.userID = row.Session.ID, row.User.ID
	return u, true, nil
}

// End signs sess out: its server-side session is deleted, so a copy of the
// cookie no longer works either.
// The sign-out is recorded with it (audit.Change), naming the session's id.
func (s *Sessions) End(ctx context.Context, sess *Session) error {
	if sess.token == "" {
		return nil
	}
	id := strconv.FormatInt(sess.id, 10)
	return audit.Change(ctx, s.conn, func(tx pgx.Tx) (string, error) {
		return id, s.end(ctx, s.q.WithTx(tx), sess)
	})
}

// end deletes sess's server-side session through q, if it has one, and
// makes sess anonymous.
func (s *Sessions) end(ctx context.Context, q *db.Queries, sess *Session) error {
	if sess.token == "" {
		return nil
	}
	hash := sha256.Sum256([]byte(sess.token))
	if err := q.DeleteSessionByTokenHash(ctx, hash[:]); err != nil {
		return fmt.Errorf("auth: end session: %w", err)
	}
	s.cache.forgetHash(hash)
	sess.anonymous()
	return nil
}

// List returns the live sessions of sess's user, the most recently used
// first, with sess's own marked Current.
func (s *Sessions) List(ctx context.Context, sess *Session) ([]SessionInfo, error) {
	now := s.now()
	rows, err := s.q.ListUserSessions(ctx, db.ListUserSessionsParams{UserID: sess.userID, IdleSince: now.Add(-IdleTimeout), Now: now})
	if err != nil {
		return nil, fmt.Errorf("auth: list sessions: %w", err)
	}
	out := make([]SessionInfo, 0, len(rows))
	for _, r := range rows {
		out = append(out, SessionInfo{
			ID: r.ID, CreatedAt: r.CreatedAt, LastSeenAt: r.LastSeenAt, ExpiresAt: r.ExpiresAt,
			UserAgent: r.UserAgent, Address: r.Address, Current: r.ID == sess.id,
		})
	}
	return out, nil
}

// EndOwn ends the session with id if it belongs to sess's user; another
// user's session is not found.
func (s *Sessions) EndOwn(ctx context.Context, sess *Session, id int64) error {
	err := audit.Change(ctx, s.conn, func(tx pgx.Tx) (string, error) {
		n, err := s.q.WithTx(tx).DeleteUserSession(ctx, db.DeleteUserSessionParams{ID: id, UserID: sess.userID})
		if err != nil {
			return "", fmt.Errorf("auth: end session %d: %w", id, err)
		}
		if n == 0 {
			return "", styrmin.Errorf(styrmin.ENOTFOUND, "You have no session with id %d; it may have ended already.", id)
		}
		return strconv.FormatInt(id, 10), nil
	})
	s.cache.forgetID(id)
	if err != nil {
		return err
	}
	if id == sess.id {
		sess.anonymous()
	}
	return nil
}

// DeleteDead deletes the sessions that are idle or expired.
func (s *Sessions) DeleteDead(ctx context.Context) error {
	now := s.now()
	if err := s.q.DeleteDeadSessions(ctx, db.DeleteDeadSessionsParams{IdleSince: now.Add(-IdleTimeout), Now: now}); err != nil {
		return fmt.Errorf("auth: delete dead sessions: %w", err)
	}
	return nil
}

// anonymous forgets who is signed in, with a fresh CSRF token.
func (sess *Session) anonymous() {
	sess.token, sess.id, sess.userID, sess.CSRF = "", 0, 0, rand.Text()
}

// tokenHash is what a table stores of a secret token (a session id, an API token).
func tokenHash(token string) []byte {
	sum := sha256.Sum256([]byte(token))
	return sum[:]
}

// cleanUserAgent makes a User-Agent header safe to store and show: valid
// UTF-8, no control characters, at most maxUserAgentLength characters.
func cleanUserAgent(ua string) string {
	ua = strings.Map(func(r rune) rune {
		if unicode.IsControl(r) {
			return -1
		}
		return r
	}, strings.ToValidUTF8(ua, "\uFFFD"))
	if r := []rune(ua); len(r) > maxUserAgentLength {
		ua = string(r[:maxUserAgentLength])
	}
	return ua
}

// SetIDToken keeps with sess's server-side session the ID token it was
// signed in with (OIDC), for the provider's end-session endpoint at sign-out.
func (s *Sessions) SetIDToken(ctx context.Context, sess *Session, idToken string) error {
	if err := s.q.SetSessionIDToken(ctx, db.SetSessionIDTokenParams{ID: sess.id, IDToken: &idToken}); err != nil {
		return fmt.Errorf("auth: keep the session's ID token: %w", err)
	}
	return nil
}

// IDToken returns the ID token sess was signed in with; empty when it was
// not signed in through OIDC or is no longer live.
func (s *Sessions) IDToken(ctx context.Context, sess *Session) (string, error) {
	if sess.token == "" {
		return "", nil
	}
	hash := sha256.Sum256([]byte(sess.token))
	token, err := s.q.GetSessionIDToken(ctx, hash[:])
	if errors.Is(err, pgx.ErrNoRows) || (err == nil && token == nil) {
		return "", nil
	} else if err != nil {
		return "", fmt.Errorf("auth: read the session's ID token: %w", err)
	}
	return *token, nil
}
