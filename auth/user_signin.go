package auth

import (
	"context"
	"errors"
	"fmt"
	"math"
	"net/netip"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/styrmin/styrmin"
	"github.com/styrmin/styrmin/db"
)

// Sign-in throttling, per address: within ThrottleWindow an address may fail
// MaxFailuresPerPair times for one username and MaxFailuresPerAddr times in
// all; further attempts from it are refused without checking the password
// until the window passes. Failures from one address never refuse another, so
// guessing a username's password cannot lock its owner out. An IPv6 address
// counts as its /64 network.
const (
	ThrottleWindow     = 15 * time.Minute
	MaxFailuresPerPair = 5
	MaxFailuresPerAddr = 20
)

// SignIn checks a username and password typed by someone at address (their IP)
// and returns the user. Wrong credentials, disabled users and throttled
// attempts all fail with a message that does not reveal which usernames exist;
// a database that does not answer fails with styrmin.EUNAVAILABLE and counts
// no failure.
func (u *Users) SignIn(ctx context.Context, username, password, address string) (User, error) {
	name, address := NormalizeUsername(username), ThrottleAddress(address)
	if len(password) > MaxPasswordLength {
		password = "" // no stored password is this long; do not spend time hashing it
	}
	row, err := u.q.GetUserByUsername(ctx, name)
	known := err == nil
	if err != nil && !errors.Is(err, pgx.ErrNoRows) {
		return User{}, db.Classify(fmt.Errorf("auth: sign in %s: %w", name, err))
	}
	attempt, err := u.reserveAttempt(ctx, name, address)
	if err != nil {
		if styrmin.ErrorCode(err) == styrmin.ETHROTTLED {
			u.refused("throttled")
		}
		return User{}, err
	}
	// Unknown usernames, and users of an identity provider (who have no
	// password), take as long to refuse as known ones.
	hash := u.dummyHash
	local := known && row.PasswordHash != nil
	if local {
		hash = *row.PasswordHash
	}
	ok, err := u.hashes.Verify(ctx, hash, password)
	if err != nil {
		// Busy, cancelled or a broken hash: not the visitor's failure.
		if derr := u.q.DeleteSigninFailure(context.WithoutCancel(ctx), attempt); derr != nil {
			err = errors.Join(err, derr)
		}
		return User{}, fmt.Errorf("auth: sign in %s: %w", name, err)
	}
	if !local || !ok || row.Disabled {
		u.refused("failed")
		return User{}, styrmin.Errorf(styrmin.EUNAUTHORIZED, "Wrong username or password, or the user is disabled.")
	}
	if u.localAdminsOnly && row.Role != Admin.String() {
		u.refused("failed")
		return User{}, styrmin.Errorf(styrmin.EFORBIDDEN, "Sign-in with a password is for admins only here; use single sign-on.")
	}
	if err := u.q.ClearSigninFailures(ctx, db.ClearSigninFailuresParams{Username: name, Address: address}); err != nil {
		return User{}, fmt.Errorf("auth: clear sign-in failures: %w", err)
	}
	return userFromRow(row), nil
}

// reserveAttempt refuses the attempt when address is over a limit, and else
// records it as a failure (which a successful sign-in clears) and returns its
// id. Counting and recording happen under a per-address lock in one
// transaction, so parallel attempts cannot all pass the count.
func (u *Users) reserveAttempt(ctx context.Context, name, address string) (int64, error) {
	now := u.now()
	tx, err := u.pool.Begin(ctx)
	if err != nil {
		return 0, fmt.Errorf("auth: begin: %w", err)
	}
	defer tx.Rollback(ctx) //nolint:errcheck // a no-op after Commit
	q := u.q.WithTx(tx)
	if err := q.LockSigninAddress(ctx, address); err != nil {
		return 0, fmt.Errorf("auth: lock sign-in attempts of %s: %w", address, err)
	}
	n, err := q.CountSigninFailures(ctx, db.CountSigninFailuresParams{Username: name, Address: address, Since: now.Add(-ThrottleWindow)})
	if err != nil {
		return 0, fmt.Errorf("auth: count sign-in failures: %w", err)
	}
	switch {
	case n.ByPair >= MaxFailuresPerPair:
		return 0, u.throttled(n.PairOldest)
	case n.ByAddress >= MaxFailuresPerAddr:
		return 0, u.throttled(n.AddressOldest)
	}
	id, err := q.RecordSigninFailure(ctx, db.RecordSigninFailureParams{Username: name, Address: address, FailedAt: now})
	if err != nil {
		return 0, fmt.Errorf("auth: record sign-in attempt: %w", err)
	}
	if err := tx.Commit(ctx); err != nil {
		return 0, fmt.Errorf("auth: commit: %w", err)
	}
	return id, nil
}

// refused tells the observer, if any, of a sign-in refused for reason.
func (u *Users) refused(reason string) {
	if u.signins != nil {
		u.signins.SigninRefused(reason)
	}
}

// ThrottleAddress is the address that attempts are counted against (failed
// sign-ins, single sign-ons under way): an IPv6 address's /64 network, as
// one host usually holds all of it (an IPv4 address, or anything
// unparsable, is kept as is).
func ThrottleAddress(address string) string {
	ip, err := netip.ParseAddr(address)
	if err != nil || !ip.Is6() || ip.Is4In6() {
		return address
	}
	return netip.PrefixFrom(ip, 64).Masked().String()
}

func (u *Users) throttled(oldest time.Time) error {
	wait := oldest.Add(ThrottleWindow).Sub(u.now())
	minutes := max(1, int(math.Ceil(wait.Minutes())))
	unit := "minutes"
	if minutes == 1 {
		unit = "minute"
	}
	return styrmin.Errorf(styrmin.ETHROTTLED, "Too many failed sign-in attempts; try again in %d %s.", minutes, unit)
}

// ForgetOldFailures deletes sign-in failures older than the throttling window.
func (u *Users) ForgetOldFailures(ctx context.Context) error {
	if err := u.q.DeleteSigninFailuresBefore(ctx, u.now().Add(-ThrottleWindow)); err != nil {
		return fmt.Errorf("auth: forget old sign-in failures: %w", err)
	}
	return nil
}

// ChangeOwnPassword replaces u's password with next once current is proven
// to be u's password, checked (and throttled, and counted as a failure when
// wrong) as a sign-in from address is. Every session of u ends, as with
// SetPassword, and u's API tokens stay; the caller starts a new session for
// the browser that asked.
// Errors: EINVALID with the field at fault (current_password, password) or
// for a user of single sign-on (who has no password), ETHROTTLED after too
// many wrong tries.
func (u *Users) ChangeOwnPassword(ctx context.Context, user User, current, next, address string) (User, error) {
	if user.Issuer != "" {
		return User{}, styrmin.Errorf(styrmin.EINVALID, "You sign in with single sign-on and have no password here; change it at your identity provider.")
	}
	if err := CheckPassword(next); err != nil {
		return User{}, err
	}
	if _, err := u.SignIn(ctx, user.Username, current, address); styrmin.ErrorCode(err) == styrmin.EUNAUTHORIZED {
		msg := "This is not your current password."
		return User{}, &styrmin.Error{Code: styrmin.EINVALID, Message: msg, Fields: map[string]string{"current_password": msg}}
	} else if err != nil {
		return User{}, err
	}
	return u.SetPassword(ctx, user.ID, next, KeepAPITokens)
}
