package auth

import (
	"context"
	"errors"
	"fmt"
	"regexp"
	"strings"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"

	"github.com/styrmin/styrmin"
	"github.com/styrmin/styrmin/db"
)

// Identity is a person as an identity provider vouched for them (OIDC).
type Identity struct {
	// Issuer and Subject name the person: the provider and its id for them.
	Issuer, Subject string
	// Username is the name the provider suggests (preferred_username, else
	// the email's local part): the new user's name, made valid and unique.
	Username string
	// Role is what the person's groups map to; never Anonymous.
	Role Role
}

// maxNameTries bounds the usernames tried for a new identity: name, name-2, ...
const maxNameTries = 100

// SignInIdentity returns the user of id, created on first sign-in, with the
// role id's groups map to now: the provider decides the role at every
// sign-in, also when that takes admin away (the local break-glass admins
// stay). A disabled user is refused.
func (u *Users) SignInIdentity(ctx context.Context, id Identity) (User, error) {
	if id.Role == Anonymous {
		return User{}, errors.New("auth: sign in an identity without a role")
	}
	row, err := u.q.GetUserByIdentity(ctx, db.GetUserByIdentityParams{Issuer: &id.Issuer, Subject: &id.Subject})
	if errors.Is(err, pgx.ErrNoRows) {
		return u.createIdentity(ctx, id)
	} else if err != nil {
		return User{}, db.Classify(fmt.Errorf("auth: sign in %s of %s: %w", id.Subject, id.Issuer, err))
	}
	if row.Disabled {
		u.refused("failed")
		return User{}, styrmin.Errorf(styrmin.EUNAUTHORIZED, "The user %s is disabled in Styrmin; ask an admin.", row.Username)
	}
	if row.Role != id.Role.String() {
		if row, err = u.q.SetUserRole(ctx, db.SetUserRoleParams{ID: row.ID, Role: id.Role.String()}); err != nil {
			return User{}, fmt.Errorf("auth: set role of %s: %w", row.Username, err)
		}
		u.changed(row.ID)
	}
	return userFromRow(row), nil
}

// createIdentity adds the user of id under the first free name of
// candidateNames; when another server added the same identity meanwhile,
// that user is the one.
func (u *Users) createIdentity(ctx context.Context, id Identity) (User, error) {
	for _, name := range candidateNames(id.Username) {
		row, err := u.q.CreateIdentityUser(ctx, db.CreateIdentityUserParams{Username: name, Role: id.Role.String(), Issuer: &id.Issuer, Subject: &id.Subject})
		var pgErr *pgconn.PgError
		switch {
		case err == nil:
			return userFromRow(row), nil
		case errors.As(err, &pgErr) && pgErr.Code == "23505" && pgErr.ConstraintName == "users_oidc_identity_key":
			return u.SignInIdentity(ctx, id)
		case db.IsUniqueViolation(err):
			continue // the name is another user's: a local user's name never signs in anyone else
		default:
			return User{}, db.Classify(fmt.Errorf("auth: create user %s of %s: %w", name, id.Issuer, err))
		}
	}
	return User{}, styrmin.Errorf(styrmin.ECONFLICT, "No free username for %q; ask an admin.", id.Username)
}

var notNameChars = regexp.MustCompile(`[^a-z0-9._-]+`)

// candidateNames are the usernames a new identity may get: suggested made
// valid (lower case, other characters as '-', at most 55 characters), then
// with -2, -3, ... appended.
func candidateNames(suggested string) []string {
	base := notNameChars.ReplaceAllString(NormalizeUsername(suggested), "-")
	base = strings.TrimLeft(base, "._-")
	if len(base) > 55 {
		base = base[:55]
	}
	if base == "" {
		base = "user"
	}
	names := make([]string, 0, maxNameTries)
	names = append(names, base)
	for i := 2; i <= maxNameTries; i++ {
		names = append(names, fmt.Sprintf("%s-%d", base, i))
	}
	return names
}
