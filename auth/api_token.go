package auth

import (
	"context"
	"crypto/rand"
	"crypto/sha256"
	"encoding/base64"
	"errors"
	"fmt"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/jackc/pgx/v5"

	"github.com/styrmin/styrmin"
	"github.com/styrmin/styrmin/audit"
	"github.com/styrmin/styrmin/db"
	"github.com/styrmin/styrmin/lru"
)

// APITokenPrefix starts every personal API token, so that it is recognised
// (and redacted) wherever it surfaces. Action tokens start with "sta_".
const APITokenPrefix = "stp_"

// DefaultAPITokenLifetime is how long a new token lasts unless its creator
// chooses otherwise, on the page and on the command line.
const DefaultAPITokenLifetime = 30 * 24 * time.Hour

// maxTokenName bounds a token's name.
const maxTokenName = 100

// lastUsedEvery is how often a token's last use is written at most.
const lastUsedEvery = time.Minute

// Credential is a user as one credential proves them, and when that
// credential expires: an API token's expiry; nil for one that does not (a
// token without expiry), for a session and for the command line.
type Credential struct {
	User User
	// TokenID is the id of the API token that proves the user; 0 for a
	// session and for the command line.
	TokenID int64
	// ExpiresAt is when the credential stops working; nil for never.
	ExpiresAt *time.Time
}

// outlives tells whether a token expiring at expiresAt (nil: never) would
// outlive the credential c.
func (c Credential) outlives(expiresAt *time.Time) bool {
	return c.ExpiresAt != nil && (expiresAt == nil || expiresAt.After(*c.ExpiresAt))
}

// APIToken is a personal API token as lists show it: never its secret.
type APIToken struct {
	ID         int64
	Name       string
	Username   string
	UserID     int64
	CreatedAt  time.Time
	ExpiresAt  *time.Time
	LastUsedAt *time.Time
	// Team is the name of the one team the token acts in; empty for a token
	// that acts in all its user's teams, with their own role.
	Team string
}

// CreatedAPIToken is a new token with its secret, shown this once.
type CreatedAPIToken struct {
	APIToken
	Secret string
}

// APITokens stores personal API tokens: only their SHA-256 is kept.
type APITokens struct {
	conn audit.Conn
	q    *db.Queries
	now  func() time.Time
	// cache remembers live tokens while database notifications are received
	// (see ListenOn); without them every call reads PostgreSQL.
	cache *credentialCache
}

// NewAPITokens returns the token store on conn.
func NewAPITokens(conn audit.Conn) *APITokens {
	return &APITokens{conn: conn, q: db.New(conn), now: time.Now,
		cache: newCredentialCache(notifyToken, 0, lastUsedEvery, credentialCacheSize, credentialCacheTTL)}
}

// ListenOn has l's notifications of revoked tokens and changed users reach
// t, which then keeps live tokens in memory while l is listening: an API
// call no longer waits for PostgreSQL to authenticate, and a revocation or
// a disabled user, by any server on the database, still takes effect at once.
func (t *APITokens) ListenOn(l *db.Listener) {
	l.Subscribe(db.SessionsChannel, t.cache)
}

// CacheStats returns the lookups of the live API tokens kept in memory: a
// hit authenticated a call without asking PostgreSQL.
func (t *APITokens) CacheStats() lru.Stats { return t.cache.lookups() }

// Create makes a token named name for the user of the credential by;
// expiresAt nil means it lasts until revoked. A token never outlives the
// credential that creates it: a token that expires cannot create one that
// expires later, or never. A token narrowed to a team creates tokens
// narrowed to that team (CreateInTeam).
func (t *APITokens) Create(ctx context.Context, by Credential, name string, expiresAt *time.Time) (CreatedAPIToken, error) {
	return t.CreateInTeam(ctx, by, name, expiresAt, "")
}

// CreateInTeam is Create of a token narrowed to the team named team, one of
// the user's (empty: not narrowed). The token then acts in that team only,
// with the user's role there as its member, and has no role of its own
// (Authenticate). A credential narrowed to a team creates tokens narrowed to
// it, and to no other.
func (t *APITokens) CreateInTeam(ctx context.Context, by Credential, name string, expiresAt *time.Time, team string) (CreatedAPIToken, error) {
	user := by.User
	name = strings.TrimSpace(name)
	now := t.now()
	switch {
	case by.outlives(expiresAt):
		return CreatedAPIToken{}, invalidField("expires_at", fmt.Sprintf(
			"A token cannot outlive the token that creates it, which expires at %s: choose an expiry at or before it.", by.ExpiresAt.UTC().Format(time.RFC3339)))
	case name == "":
		return CreatedAPIToken{}, invalidField("name", "Name the token after what will use it, such as \"nightly backup script\".")
	case utf8.RuneCountInString(name) > maxTokenName:
		return CreatedAPIToken{}, invalidField("name", fmt.Sprintf("A token's name has at most %d characters.", maxTokenName))
	case expiresAt != nil && !expiresAt.After(now):
		return CreatedAPIToken{}, invalidField("expires_at", "The expiry must be in the future.")
	}
	teamID, team, err := t.tokenTeam(ctx, by.User, strings.TrimSpace(team))
	if err != nil {
		return CreatedAPIToken{}, err
	}
	raw := make([]byte, 32)
	rand.Read(raw) // never fails
	secret := APITokenPrefix + base64.RawURLEncoding.EncodeToString(raw)
	var row db.ApiToken
	err = audit.Change(ctx, t.conn, func(tx pgx.Tx) (string, error) {
		var err error
		row, err = t.q.WithTx(tx).CreateAPIToken(ctx, db.CreateAPITokenParams{
			TokenHash: tokenHash(secret), UserID: user.ID, Name: name, Now: now, ExpiresAt: expiresAt, TeamID: teamID,
		})
		return strconv.FormatInt(row.ID, 10), err
	})
	if err != nil {
		return CreatedAPIToken{}, fmt.Errorf("auth: create API token for %s: %w", user.Username, err)
	}
	return CreatedAPIToken{APIToken: apiTokenFromRow(row, user.Username, team), Secret: secret}, nil
}

// tokenTeam returns the id and name of the team a new token of user is
// narrowed to: the team named (a team the user is a member of), else the
// team user's own credential is narrowed to; nil for none.
func (t *APITokens) tokenTeam(ctx context.Context, user User, team string) (*int64, string, error) {
	if user.OnlyTeam != 0 {
		only, err := t.q.GetTeamName(ctx, user.OnlyTeam)
		if err != nil {
			return nil, "", fmt.Errorf("auth: the team of the token's credential: %w", db.Classify(err))
		}
		if team != "" && team != only {
			return nil, "", invalidField("team", fmt.Sprintf("This token acts in the team %s only: the tokens it creates act there too.", only))
		}
		return &user.OnlyTeam, only, nil
	}
	if team == "" {
		return nil, "", nil
	}
	row, err := t.q.GetTokenTeam(ctx, db.GetTokenTeamParams{Name: team, UserID: user.ID})
	if errors.Is(err, pgx.ErrNoRows) {
		return nil, "", invalidField("team", fmt.Sprintf("You are in no team named %q: a token can be narrowed to one of your own teams only.", team))
	}
	if err != nil {
		return nil, "", fmt.Errorf("auth: the team of a new token: %w", db.Classify(err))
	}
	return &row.ID, row.Name, nil
}

// Authenticate returns the user of a live token, and when the token
// expires, and records its use. An unknown, revoked or expired token, or one
// of a disabled user, is an EUNAUTHORIZED error. A live token is remembered
// (see ListenOn), so the next call with it is answered from memory.
func (t *APITokens) Authenticate(ctx context.Context, secret string) (Credential, error) {
	if !strings.HasPrefix(secret, APITokenPrefix) {
		return Credential{}, styrmin.Errorf(styrmin.EUNAUTHORIZED, "This is not a personal API token; create one on the API tokens page.")
	}
	now, hash := t.now(), sha256.Sum256([]byte(secret))
	if cc, touch, ok := t.cache.get(hash, now); ok {
		if touch {
			if err := t.touch(ctx, cc.id, now); err != nil {
				return Credential{}, err
			}
		}
		return cc.credential(), nil
	}
	epoch, caching := t.cache.begin()
	row, err := t.q.GetLiveAPIToken(ctx, db.GetLiveAPITokenParams{TokenHash: hash[:], Now: now})
	if errors.Is(err, pgx.ErrNoRows) {
		return Credential{}, styrmin.Errorf(styrmin.EUNAUTHORIZED, "The API token is unknown, revoked or expired, or its user is disabled.")
	} else if err != nil {
		return Credential{}, fmt.Errorf("auth: authenticate API token: %w", err)
	}
	lastUsed := row.ApiToken.LastUsedAt
	if lastUsed == nil || now.Sub(*lastUsed) >= lastUsedEvery {
		if err := t.touch(ctx, row.ApiToken.ID, now); err != nil {
			return Credential{}, err
		}
		lastUsed = &now
	}
	cred := Credential{User: narrowed(userFromRow(row.User), row.ApiToken.TeamID), TokenID: row.ApiToken.ID, ExpiresAt: row.ApiToken.ExpiresAt}
	if caching {
		var expires time.Time
		if row.ApiToken.ExpiresAt != nil {
			expires = *row.ApiToken.ExpiresAt
		}
		t.cache.put(epoch, now, cachedCredential{hash: hash, id: row.ApiToken.ID, user: cred.User, lastUsed: *lastUsed, expires: expires})
	}
	return cred, nil
}

// narrowed is the user a token acts as: u itself, or for a token narrowed
// to a team, u with no role of their own (Member), acting in that team
// only, where their membership gives their role (package teams).
func narrowed(u User, team *int64) User {
	if team != nil {
		u.Role, u.OnlyTeam = Member, *team
	}
	return u
}

// touch records a use at now of the token with id.
func (t *APITokens) touch(ctx context.Context, id int64, now time.Time) error {
	if err := t.q.TouchAPIToken(ctx, db.TouchAPITokenParams{ID: id, Now: now, Since: now.Add(-lastUsedEvery)}); err != nil {
		return fmt.Errorf("auth: record API token use: %w", err)
	}
	return nil
}

// List returns user's tokens, the newest first.
func (t *APITokens) List(ctx context.Context, user User) ([]APIToken, error) {
	rows, err := t.q.ListUserAPITokens(ctx, user.ID)
	if err != nil {
		return nil, fmt.Errorf("auth: list API tokens of %s: %w", user.Username, err)
	}
	out := make([]APIToken, len(rows))
	for i, r := range rows {
		out[i] = apiTokenFromRow(r.ApiToken, user.Username, r.Team)
	}
	return out, nil
}

// Revoke deletes the token id. Users revoke their own tokens; admins anyone's.
// Another user's token is ENOTFOUND for a non-admin, so that ids reveal nothing.
func (t *APITokens) Revoke(ctx context.Context, by User, id int64) error {
	err := audit.Change(ctx, t.conn, func(tx pgx.Tx) (string, error) {
		q := t.q.WithTx(tx)
		row, err := q.GetAPIToken(ctx, id)
		if errors.Is(err, pgx.ErrNoRows) || (err == nil && row.UserID != by.ID && !by.Role.AtLeast(Admin)) {
			return "", styrmin.Errorf(styrmin.ENOTFOUND, "There is no API token %d of yours.", id)
		} else if err != nil {
			return "", fmt.Errorf("auth: get API token %d: %w", id, err)
		}
		if _, err := q.DeleteAPIToken(ctx, id); err != nil {
			return "", fmt.Errorf("auth: revoke API token %d: %w", id, err)
		}
		return strconv.FormatInt(id, 10), nil
	})
	if err != nil {
		return err
	}
	t.cache.forgetID(id)
	return nil
}

func apiTokenFromRow(r db.ApiToken, username, team string) APIToken {
	return APIToken{
		ID: r.ID, Name: r.Name, Username: username, UserID: r.UserID,
		CreatedAt: r.CreatedAt, ExpiresAt: r.ExpiresAt, LastUsedAt: r.LastUsedAt, Team: team,
	}
}

// invalidField is an EINVALID error about one field.
func invalidField(field, message string) error {
	return &styrmin.Error{Code: styrmin.EINVALID, Message: message, Fields: map[string]string{field: message}}
}
