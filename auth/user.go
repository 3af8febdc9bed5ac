package auth

import (
	"context"
	"errors"
	"fmt"
	"regexp"
	"strconv"
	"strings"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/styrmin/styrmin"
	"github.com/styrmin/styrmin/audit"
	"github.com/styrmin/styrmin/db"
)

// User is a person who signs in.
type User struct {
	ID        int64
	Username  string
	Role      Role
	Disabled  bool
	CreatedAt time.Time
	// Issuer is the identity provider the user signs in with (OIDC); empty
	// for a local user, who has a password.
	Issuer string
	// OnlyTeam is the id of the one team a request acts in, for an API
	// token narrowed to a team (its Role is then Member: no role of its
	// own over any team); 0 for all the user's teams.
	OnlyTeam int64
}

// Source says where the user signs in: "local" (a password) or "oidc".
func (u User) Source() string {
	if u.Issuer != "" {
		return "oidc"
	}
	return "local"
}

// Users stores users in PostgreSQL and checks their passwords.
type Users struct {
	pool *pgxpool.Pool
	q    *db.Queries
	now  func() time.Time
	// hashes bounds the argon2id hashes running at once.
	hashes *hashGate
	// dummyHash is verified against when a username is unknown, so that
	// unknown and known usernames take the same time to refuse.
	dummyHash string
	// caches are the session and API token caches of this process
	// (InformSessions, InformAPITokens).
	caches []*credentialCache
	// signins hears of refused sign-ins; nil hears nothing.
	signins SigninObserver
	// localAdminsOnly refuses password sign-in to everyone but admins
	// (WithLocalSignin).
	localAdminsOnly bool
}

// SigninObserver hears of refused sign-ins (metrics.Metrics).
type SigninObserver interface {
	// SigninRefused is called with "failed" for wrong credentials or a
	// disabled user, and "throttled" for an attempt refused unchecked.
	SigninRefused(reason string)
}

// UsersOption changes a setting of NewUsers.
type UsersOption func(*usersConfig)

// usersConfig is what the options of NewUsers set.
type usersConfig struct {
	argon2          Argon2Params
	signins         SigninObserver
	localAdminsOnly bool
}

// LocalSignin says who may sign in with a password.
type LocalSignin string

// Who may sign in with a password (--local-sign-in).
const (
	// LocalSigninAll lets every local user sign in with their password.
	LocalSigninAll LocalSignin = "all"
	// LocalSigninAdminsOnly keeps password sign-in for admins, the
	// break-glass accounts of a server whose people sign in with OIDC.
	LocalSigninAdminsOnly LocalSignin = "admins-only"
)

// ParseLocalSignin reads a --local-sign-in setting; empty is LocalSigninAll.
func ParseLocalSignin(s string) (LocalSignin, error) {
	switch LocalSignin(s) {
	case "", LocalSigninAll:
		return LocalSigninAll, nil
	case LocalSigninAdminsOnly:
		return LocalSigninAdminsOnly, nil
	}
	return "", fmt.Errorf("auth: local sign-in %q: use %q or %q", s, LocalSigninAll, LocalSigninAdminsOnly)
}

// WithLocalSignin sets who may sign in with a password (default everyone).
func WithLocalSignin(who LocalSignin) UsersOption {
	return func(c *usersConfig) { c.localAdminsOnly = who == LocalSigninAdminsOnly }
}

// WithSigninObserver has obs hear of every refused sign-in.
func WithSigninObserver(obs SigninObserver) UsersOption {
	return func(c *usersConfig) { c.signins = obs }
}

// WithArgon2 has the store hash new passwords with params instead of
// DefaultArgon2.
func WithArgon2(params Argon2Params) UsersOption {
	return func(c *usersConfig) { c.argon2 = params }
}

// NewUsers returns the user store on pool.
func NewUsers(pool *pgxpool.Pool, opts ...UsersOption) (*Users, error) {
	cfg := usersConfig{argon2: DefaultArgon2()}
	for _, opt := range opts {
		opt(&cfg)
	}
	dummy, err := cfg.argon2.Hash("not a password of anyone")
	if err != nil {
		return nil, err
	}
	return &Users{pool: pool, q: db.New(pool), now: time.Now, hashes: newHashGate(cfg.argon2), dummyHash: dummy, signins: cfg.signins,
		localAdminsOnly: cfg.localAdminsOnly}, nil
}

// InformSessions has every change to a user (disabled, new password, new
// role) forget the user's sessions in s's memory as soon as it commits, in
// this process; other processes learn of it from the database's
// notification. Call it when wiring, before serving.
func (u *Users) InformSessions(s *Sessions) {
	u.caches = append(u.caches, s.cache)
}

// InformAPITokens does for t's remembered API tokens what InformSessions
// does for sessions.
func (u *Users) InformAPITokens(t *APITokens) {
	u.caches = append(u.caches, t.cache)
}

// changed forgets the remembered sessions and API tokens of the user with
// id, after a change to the user committed.
func (u *Users) changed(id int64) {
	for _, c := range u.caches {
		c.forgetUser(id)
	}
}

var usernamePattern = regexp.MustCompile(`^[a-z0-9][a-z0-9._-]{0,62}$`)

// NormalizeUsername lower-cases and trims a username as typed.
func NormalizeUsername(name string) string { return strings.ToLower(strings.TrimSpace(name)) }

// CheckUsername refuses names that are not 1–63 lower-case letters, digits, '.', '_' or '-'.
func CheckUsername(name string) error {
	if !usernamePattern.MatchString(name) {
		return &styrmin.Error{
			Code:    styrmin.EINVALID,
			Message: fmt.Sprintf("Invalid username %q: use 1 to 63 lower-case letters, digits, '.', '_' or '-', starting with a letter or digit.", name),
			Fields:  map[string]string{"username": "1 to 63 lower-case letters, digits, '.', '_' or '-'."},
		}
	}
	return nil
}

// NewUser is what Create needs.
type NewUser struct {
	Username string
	Password string
	Role     Role
}

// Create adds a user.
func (u *Users) Create(ctx context.Context, nu NewUser) (User, error) {
	name := NormalizeUsername(nu.Username)
	if err := CheckUsername(name); err != nil {
		return User{}, err
	}
	if nu.Role == Anonymous {
		return User{}, &styrmin.Error{Code: styrmin.EINVALID, Message: "Choose a role: admin, operator, read-only or member.", Fields: map[string]string{"role": "Choose a role."}}
	}
	if err := CheckPassword(nu.Password); err != nil {
		return User{}, err
	}
	hash, err := u.hashes.Hash(ctx, nu.Password)
	if err != nil {
		return User{}, err
	}
	var row db.User
	err = audit.Change(ctx, u.pool, func(tx pgx.Tx) (string, error) {
		var err error
		row, err = u.q.WithTx(tx).CreateUser(ctx, db.CreateUserParams{Username: name, PasswordHash: &hash, Role: nu.Role.String()})
		return name, err
	})
	if db.IsUniqueViolation(err) {
		return User{}, &styrmin.Error{
			Code:    styrmin.ECONFLICT,
			Message: fmt.Sprintf("A user named %q already exists; choose another name.", name),
			Fields:  map[string]string{"username": "This name is taken."},
		}
	} else if err != nil {
		return User{}, fmt.Errorf("auth: create user %s: %w", name, err)
	}
	return userFromRow(row), nil
}

// Get returns the user with id.
func (u *Users) Get(ctx context.Context, id int64) (User, error) {
	row, err := u.q.GetUserByID(ctx, id)
	if errors.Is(err, pgx.ErrNoRows) {
		return User{}, styrmin.Errorf(styrmin.ENOTFOUND, "There is no user with id %d.", id)
	} else if err != nil {
		return User{}, fmt.Errorf("auth: get user %d: %w", id, err)
	}
	return userFromRow(row), nil
}

// GetByUsername returns the user named name (as typed: it is normalised).
func (u *Users) GetByUsername(ctx context.Context, name string) (User, error) {
	name = NormalizeUsername(name)
	row, err := u.q.GetUserByUsername(ctx, name)
	if errors.Is(err, pgx.ErrNoRows) {
		return User{}, styrmin.Errorf(styrmin.ENOTFOUND, "There is no user named %q.", name)
	} else if err != nil {
		return User{}, fmt.Errorf("auth: get user %s: %w", name, err)
	}
	return userFromRow(row), nil
}

// List returns every user, by username.
func (u *Users) List(ctx context.Context) ([]User, error) {
	rows, err := u.q.ListUsers(ctx)
	if err != nil {
		return nil, fmt.Errorf("auth: list users: %w", err)
	}
	users := make([]User, 0, len(rows))
	for _, r := range rows {
		users = append(users, userFromRow(r))
	}
	return users, nil
}

// SetRole changes a user's role, from their next request on. It refuses to
// leave no enabled admin. The audit entry's detail names the new role.
func (u *Users) SetRole(ctx context.Context, id int64, role Role) (User, error) {
	audit.Note(ctx, "role", role.String())
	if role == Anonymous {
		return User{}, styrmin.Errorf(styrmin.EINVALID, "Choose a role: admin, operator, read-only or member.")
	}
	defer u.changed(id)
	return u.changeKeepingAdmin(ctx, id, func(q *db.Queries) (db.User, error) {
		return q.SetUserRole(ctx, db.SetUserRoleParams{ID: id, Role: role.String()})
	})
}

// SetDisabled disables or enables a user; disabling ends their sessions. It
// refuses to disable the last enabled admin. The audit entry's detail says
// which ("disabled": "true" or "false").
func (u *Users) SetDisabled(ctx context.Context, id int64, disabled bool) (User, error) {
	audit.Note(ctx, "disabled", strconv.FormatBool(disabled))
	defer u.changed(id)
	return u.changeKeepingAdmin(ctx, id, func(q *db.Queries) (db.User, error) {
		row, err := q.SetUserDisabled(ctx, db.SetUserDisabledParams{ID: id, Disabled: disabled})
		if err == nil && disabled {
			err = q.DeleteUserSessions(ctx, id)
		}
		return row, err
	})
}

// APITokensOnReset says whether a new password also ends the user's API tokens.
type APITokensOnReset bool

// What SetPassword does with the user's API tokens.
const (
	// EndAPITokens revokes them: an admin resetting the password of a user
	// whose password leaked ends whatever was made with it.
	EndAPITokens APITokensOnReset = true
	// KeepAPITokens leaves them working.
	KeepAPITokens APITokensOnReset = false
)

// SetPassword replaces a user's password and ends their sessions, and their
// API tokens too unless tokens is KeepAPITokens. The audit entry's detail
// says so ("password": "new"), never the password.
func (u *Users) SetPassword(ctx context.Context, id int64, password string, tokens APITokensOnReset) (User, error) {
	audit.Note(ctx, "password", "new")
	if err := CheckPassword(password); err != nil {
		return User{}, err
	}
	hash, err := u.hashes.Hash(ctx, password)
	if err != nil {
		return User{}, err
	}
	defer u.changed(id)
	tx, err := u.pool.Begin(ctx)
	if err != nil {
		return User{}, fmt.Errorf("auth: begin: %w", err)
	}
	defer tx.Rollback(ctx) //nolint:errcheck // a no-op after Commit
	q := u.q.WithTx(tx)
	row, err := q.SetUserPassword(ctx, db.SetUserPasswordParams{ID: id, PasswordHash: &hash})
	var pgErr *pgconn.PgError
	if errors.Is(err, pgx.ErrNoRows) {
		return User{}, styrmin.Errorf(styrmin.ENOTFOUND, "There is no user with id %d.", id)
	} else if errors.As(err, &pgErr) && pgErr.ConstraintName == "users_identity_check" {
		return User{}, styrmin.Errorf(styrmin.EINVALID, "User %d signs in with single sign-on and has no password here.", id)
	} else if err != nil {
		return User{}, fmt.Errorf("auth: set password of user %d: %w", id, err)
	}
	if err := q.DeleteUserSessions(ctx, id); err != nil {
		return User{}, fmt.Errorf("auth: end sessions of user %d: %w", id, err)
	}
	if tokens == EndAPITokens {
		if _, err := q.DeleteUserAPITokens(ctx, id); err != nil {
			return User{}, fmt.Errorf("auth: end API tokens of user %d: %w", id, err)
		}
	}
	if err := commitAudited(ctx, tx, id); err != nil {
		return User{}, err
	}
	return userFromRow(row), nil
}

// changeKeepingAdmin applies change in a transaction that holds the users
// table, and rolls it back when it takes the last enabled admin's rights away.
func (u *Users) changeKeepingAdmin(ctx context.Context, id int64, change func(*db.Queries) (db.User, error)) (User, error) {
	tx, err := u.pool.Begin(ctx)
	if err != nil {
		return User{}, fmt.Errorf("auth: begin: %w", err)
	}
	defer tx.Rollback(ctx) //nolint:errcheck // a no-op after Commit
	q := u.q.WithTx(tx)
	if err := q.LockUsers(ctx); err != nil {
		return User{}, fmt.Errorf("auth: lock users: %w", err)
	}
	before, err := q.GetUserByID(ctx, id)
	if errors.Is(err, pgx.ErrNoRows) {
		return User{}, styrmin.Errorf(styrmin.ENOTFOUND, "There is no user with id %d.", id)
	} else if err != nil {
		return User{}, fmt.Errorf("auth: get user %d: %w", id, err)
	}
	row, err := change(q)
	if err != nil {
		return User{}, fmt.Errorf("auth: change user %d: %w", id, err)
	}
	if isActiveAdmin(before) && !isActiveAdmin(row) {
		admins, err := q.CountActiveAdmins(ctx)
		if err != nil {
			return User{}, fmt.Errorf("auth: count admins: %w", err)
		}
		if admins == 0 {
			return User{}, styrmin.Errorf(styrmin.ECONFLICT, "%s is the last enabled admin; make another user admin first.", row.Username)
		}
	}
	if err := commitAudited(ctx, tx, id); err != nil {
		return User{}, err
	}
	return userFromRow(row), nil
}

// commitAudited writes the request's audit entry about the user with id in
// tx (audit.Within) and commits both.
func commitAudited(ctx context.Context, tx pgx.Tx, id int64) error {
	audited, err := audit.Within(ctx, tx, strconv.FormatInt(id, 10), 0)
	if err != nil {
		return err
	}
	if err := tx.Commit(ctx); err != nil {
		return fmt.Errorf("auth: commit: %w", err)
	}
	audited()
	return nil
}

// EnsureAdmin creates the user "admin" when there are no users at all, with
// password, or a generated one when password is empty. It returns whether it
// created the user and the password it used.
func (u *Users) EnsureAdmin(ctx context.Context, password string) (created bool, used string, err error) {
	n, err := u.q.CountUsers(ctx)
	if err != nil {
		return false, "", fmt.Errorf("auth: count users: %w", err)
	}
	if n > 0 {
		return false, "", nil
	}
	password, _ = PasswordOrGenerated(password)
	if _, err := u.Create(ctx, NewUser{Username: "admin", Password: password, Role: Admin}); err != nil {
		if styrmin.ErrorCode(err) == styrmin.ECONFLICT {
			return false, "", nil // another server created it first
		}
		return false, "", fmt.Errorf("auth: first admin: %w", err)
	}
	return true, password, nil
}

func isActiveAdmin(r db.User) bool { return r.Role == Admin.String() && !r.Disabled }

func userFromRow(r db.User) User {
	role, err := ParseRole(r.Role)
	if err != nil {
		role = Anonymous // the table's CHECK constraint makes this unreachable
	}
	u := User{ID: r.ID, Username: r.Username, Role: role, Disabled: r.Disabled, CreatedAt: r.CreatedAt}
	if r.OidcIssuer != nil {
		u.Issuer = *r.OidcIssuer
	}
	return u
}
