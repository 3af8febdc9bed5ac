package auth

import (
	"context"
	"fmt"
	"math"
	"time"

	"github.com/styrmin/styrmin"
	"github.com/styrmin/styrmin/db"
)

// Sign-in throttling: more than this many failures within ThrottleWindow refuse
// further attempts for that username or that address until the window passes.
const (
	ThrottleWindow     = 15 * time.Minute
	MaxFailuresPerUser = 5
	MaxFailuresPerAddr = 20
)

// SignIn checks a username and password typed by someone at address (their IP)
// and returns the user. Wrong credentials, disabled users and throttled
// attempts all fail with a message that does not reveal which usernames exist.
func (u *Users) SignIn(ctx context.Context, username, password, address string) (User, error) {
	name := NormalizeUsername(username)
	if err := u.checkThrottle(ctx, name, address); err != nil {
		return User{}, err
	}
	if len(password) > MaxPasswordLength {
		password = "" // no stored password is this long; do not spend time hashing it
	}
	row, err := u.q.GetUserByUsername(ctx, name)
	hash := row.PasswordHash
	if err != nil {
		hash = u.dummyHash
	}
	ok, verr := VerifyPassword(hash, password)
	if verr != nil {
		return User{}, fmt.Errorf("auth: sign in %s: %w", name, verr)
	}
	if err != nil || !ok || row.Disabled {
		if rerr := u.q.RecordSigninFailure(ctx, db.RecordSigninFailureParams{Username: name, Address: address}); rerr != nil {
			return User{}, fmt.Errorf("auth: record sign-in failure: %w", rerr)
		}
		return User{}, styrmin.Errorf(styrmin.EUNAUTHORIZED, "Wrong username or password, or the user is disabled.")
	}
	if err := u.q.ClearSigninFailures(ctx, name); err != nil {
		return User{}, fmt.Errorf("auth: clear sign-in failures: %w", err)
	}
	return userFromRow(row), nil
}

// checkThrottle refuses an attempt when the username or the address failed too often lately.
func (u *Users) checkThrottle(ctx context.Context, name, address string) error {
	since := u.now().Add(-ThrottleWindow)
	byUser, err := u.q.SigninFailuresByUsername(ctx, db.SigninFailuresByUsernameParams{Username: name, Since: since})
	if err != nil {
		return fmt.Errorf("auth: count sign-in failures: %w", err)
	}
	if byUser.Failures >= MaxFailuresPerUser {
		return u.throttled(byUser.Oldest)
	}
	byAddr, err := u.q.SigninFailuresByAddress(ctx, db.SigninFailuresByAddressParams{Address: address, Since: since})
	if err != nil {
		return fmt.Errorf("auth: count sign-in failures: %w", err)
	}
	if byAddr.Failures >= MaxFailuresPerAddr {
		return u.throttled(byAddr.Oldest)
	}
	return nil
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
