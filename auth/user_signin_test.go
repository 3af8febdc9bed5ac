package auth

import (
	"context"
	"fmt"
	"runtime"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/styrmin/styrmin"
	"github.com/styrmin/styrmin/db"
	"github.com/styrmin/styrmin/db/dbtest"
)

func newTestUsers(t *testing.T) *Users {
	t.Helper()
	users, err := NewUsers(dbtest.New(t), WithArgon2(CheapArgon2()))
	require.NoError(t, err)
	return users
}

func TestSignIn(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	users := newTestUsers(t)
	alice, err := users.Create(ctx, NewUser{Username: "alice", Password: "alice's password", Role: Operator})
	require.NoError(t, err)

	u, err := users.SignIn(ctx, " Alice", "alice's password", "192.0.2.1")
	require.NoError(t, err)
	require.Equal(t, alice, u)

	for _, attempt := range []struct{ username, password string }{
		{"alice", "wrong password"},
		{"nobody", "alice's password"},
		{"alice", strings.Repeat("alice's password", 100)},
	} {
		_, err := users.SignIn(ctx, attempt.username, attempt.password, "192.0.2.1")
		require.Equal(t, styrmin.EUNAUTHORIZED, styrmin.ErrorCode(err))
		require.EqualError(t, err, "Wrong username or password, or the user is disabled.", "the message does not tell which usernames exist")
	}
}

func TestSignInRefusesDisabledUsers(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	users := newTestUsers(t)
	_, err := users.Create(ctx, NewUser{Username: "root", Password: "root's password", Role: Admin})
	require.NoError(t, err)
	bob, err := users.Create(ctx, NewUser{Username: "bob", Password: "bob's password", Role: ReadOnly})
	require.NoError(t, err)
	_, err = users.SetDisabled(ctx, bob.ID, true)
	require.NoError(t, err)

	_, err = users.SignIn(ctx, "bob", "bob's password", "192.0.2.1")
	require.Equal(t, styrmin.EUNAUTHORIZED, styrmin.ErrorCode(err))
}

// TestGuessesFromOneAddressDoNotLockTheUserOutElsewhere is the lockout of
// issue 7: five wrong passwords for admin from one address used to refuse
// the real admin everywhere for 15 minutes.
func TestGuessesFromOneAddressDoNotLockTheUserOutElsewhere(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	users := newTestUsers(t)
	_, err := users.Create(ctx, NewUser{Username: "admin", Password: "admin's password", Role: Admin})
	require.NoError(t, err)
	const attacker, owner = "203.0.113.66", "198.51.100.7"

	for range MaxFailuresPerPair {
		_, err := users.SignIn(ctx, "admin", "guess", attacker)
		require.Equal(t, styrmin.EUNAUTHORIZED, styrmin.ErrorCode(err))
	}
	_, err = users.SignIn(ctx, "admin", "admin's password", attacker)
	require.Equal(t, styrmin.ETHROTTLED, styrmin.ErrorCode(err), "even the right password is refused from the guessing address")
	require.EqualError(t, err, "Too many failed sign-in attempts; try again in 15 minutes.")

	_, err = users.SignIn(ctx, "admin", "admin's password", owner)
	require.NoError(t, err, "the admin signs in from another address")
	_, err = users.SignIn(ctx, "admin", "guess", attacker)
	require.Equal(t, styrmin.ETHROTTLED, styrmin.ErrorCode(err), "the owner's success does not reset the attacker's count")

	later := time.Now().Add(ThrottleWindow + time.Minute)
	users.now = func() time.Time { return later }
	_, err = users.SignIn(ctx, "admin", "admin's password", attacker)
	require.NoError(t, err, "the window has passed")
}

func TestSignInThrottlesPerAddress(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	users := newTestUsers(t)
	_, err := users.Create(ctx, NewUser{Username: "alice", Password: "alice's password", Role: Admin})
	require.NoError(t, err)

	for i := range MaxFailuresPerAddr {
		// A different username each time, so only the per-address limit applies.
		_, err := users.SignIn(ctx, fmt.Sprintf("user%d", i), "guess", "203.0.113.9")
		require.Equal(t, styrmin.EUNAUTHORIZED, styrmin.ErrorCode(err))
	}
	_, err = users.SignIn(ctx, "alice", "alice's password", "203.0.113.9")
	require.Equal(t, styrmin.ETHROTTLED, styrmin.ErrorCode(err))

	_, err = users.SignIn(ctx, "alice", "alice's password", "203.0.113.10")
	require.NoError(t, err, "other addresses are not affected")
}

func TestSuccessClearsThePairsFailures(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	users := newTestUsers(t)
	_, err := users.Create(ctx, NewUser{Username: "alice", Password: "alice's password", Role: Admin})
	require.NoError(t, err)
	for range MaxFailuresPerPair - 1 {
		_, err := users.SignIn(ctx, "alice", "guess", "192.0.2.1")
		require.Error(t, err)
	}
	_, err = users.SignIn(ctx, "alice", "alice's password", "192.0.2.1")
	require.NoError(t, err)
	_, err = users.SignIn(ctx, "alice", "guess", "192.0.2.1")
	require.Equal(t, styrmin.EUNAUTHORIZED, styrmin.ErrorCode(err), "the count started again after the success")
}

// countingVerify makes users count password checks and track how many run at
// once, each taking at least hold.
func countingVerify(users *Users, hold time.Duration) (calls, peak *atomic.Int64) {
	calls, peak = new(atomic.Int64), new(atomic.Int64)
	running := new(atomic.Int64)
	users.hashes.verify = func(hash, password string) (bool, error) {
		calls.Add(1)
		n := running.Add(1)
		defer running.Add(-1)
		for p := peak.Load(); n > p && !peak.CompareAndSwap(p, n); p = peak.Load() {
		}
		time.Sleep(hold)
		return VerifyPassword(hash, password)
	}
	return calls, peak
}

// TestParallelGuessesAreCountedAtomically is the race of issue 7: 200
// parallel wrong passwords from one address were all checked.
func TestParallelGuessesAreCountedAtomically(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	users := newTestUsers(t)
	_, err := users.Create(ctx, NewUser{Username: "admin", Password: "admin's password", Role: Admin})
	require.NoError(t, err)
	calls, _ := countingVerify(users, 0)

	const attempts = 200
	codes := make(chan string, attempts)
	var wg sync.WaitGroup
	for i := range attempts {
		wg.Go(func() {
			_, err := users.SignIn(ctx, "admin", fmt.Sprintf("guess %d", i), "203.0.113.66")
			codes <- styrmin.ErrorCode(err)
		})
	}
	wg.Wait()
	close(codes)
	count := map[string]int{}
	for c := range codes {
		count[c]++
	}
	require.Equal(t, int64(MaxFailuresPerPair), calls.Load(), "only the attempts within the limit are checked")
	require.Equal(t, map[string]int{styrmin.EUNAUTHORIZED: MaxFailuresPerPair, styrmin.ETHROTTLED: attempts - MaxFailuresPerPair}, count)
}

// TestConcurrentHashesAreBounded: parallel sign-ins from many addresses
// (none throttled) never run more argon2id hashes at once than there are CPUs.
func TestConcurrentHashesAreBounded(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	users := newTestUsers(t)
	calls, peak := countingVerify(users, 20*time.Millisecond)

	attempts := 4 * runtime.NumCPU()
	var wg sync.WaitGroup
	for i := range attempts {
		wg.Go(func() {
			_, err := users.SignIn(ctx, "nobody", "guess", fmt.Sprintf("192.0.2.%d", i))
			require.Equal(t, styrmin.EUNAUTHORIZED, styrmin.ErrorCode(err))
		})
	}
	wg.Wait()
	require.Equal(t, int64(attempts), calls.Load(), "every attempt was checked")
	require.LessOrEqual(t, peak.Load(), int64(runtime.NumCPU()))
}

// TestBusyHashingIsRefusedAndNotCounted: when every hashing slot stays busy
// past the wait limit, the attempt is refused as unavailable and does not
// count as a failure.
func TestBusyHashingIsRefusedAndNotCounted(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	users := newTestUsers(t)
	users.hashes.maxWait = 10 * time.Millisecond
	for range cap(users.hashes.slots) {
		users.hashes.slots <- struct{}{}
	}
	_, err := users.SignIn(ctx, "alice", "guess", "192.0.2.1")
	require.Equal(t, styrmin.EUNAVAILABLE, styrmin.ErrorCode(err))
	n, err := users.q.CountSigninFailures(ctx, db.CountSigninFailuresParams{Username: "alice", Address: "192.0.2.1", Since: time.Now().Add(-time.Hour)})
	require.NoError(t, err)
	require.Zero(t, n.ByAddress)
}

// TestSignInWhileTheDatabaseIsDown: an outage is not a wrong password; it
// answers unavailable and records nothing.
func TestSignInWhileTheDatabaseIsDown(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	pg := dbtest.NewStoppable(t)
	users, err := NewUsers(pg.Pool, WithArgon2(CheapArgon2()))
	require.NoError(t, err)
	_, err = users.Create(ctx, NewUser{Username: "alice", Password: "alice's password", Role: Admin})
	require.NoError(t, err)

	pg.Stop(t)
	_, err = users.SignIn(ctx, "alice", "alice's password", "192.0.2.1")
	require.Equal(t, styrmin.EUNAVAILABLE, styrmin.ErrorCode(err), "%v", err)
	require.Equal(t, db.UnavailableMessage, styrmin.ErrorMessage(err))

	pg.Start(t)
	pg.Pool.Reset() // drop the connections that died with the server, rather than fail on each once
	n, err := users.q.CountSigninFailures(ctx, db.CountSigninFailuresParams{Username: "alice", Address: "192.0.2.1", Since: time.Now().Add(-time.Hour)})
	require.NoError(t, err)
	require.Zero(t, n.ByAddress, "no failure was recorded")
	_, err = users.SignIn(ctx, "alice", "alice's password", "192.0.2.1")
	require.NoError(t, err)
}

func TestThrottleAddress(t *testing.T) {
	t.Parallel()
	tests := []struct{ address, want string }{
		{"192.0.2.1", "192.0.2.1"},
		{"2001:db8:1:2:3:4:5:6", "2001:db8:1:2::/64"},
		{"2001:db8:1:2:ffff::1", "2001:db8:1:2::/64"},
		{"2001:db8:1:3::1", "2001:db8:1:3::/64"},
		{"::ffff:192.0.2.1", "::ffff:192.0.2.1"},
		{"not an address", "not an address"},
	}
	for _, tt := range tests {
		require.Equal(t, tt.want, ThrottleAddress(tt.address), tt.address)
	}
}

// TestSignInThrottlesAnIPv6Network: one host holds a whole /64, so changing
// the last 64 bits does not buy more guesses.
func TestSignInThrottlesAnIPv6Network(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	users := newTestUsers(t)
	for i := range MaxFailuresPerPair {
		_, err := users.SignIn(ctx, "admin", "guess", fmt.Sprintf("2001:db8:1:2::%x", i+1))
		require.Equal(t, styrmin.EUNAUTHORIZED, styrmin.ErrorCode(err))
	}
	_, err := users.SignIn(ctx, "admin", "guess", "2001:db8:1:2::ffff")
	require.Equal(t, styrmin.ETHROTTLED, styrmin.ErrorCode(err))
	_, err = users.SignIn(ctx, "admin", "guess", "2001:db8:1:3::1")
	require.Equal(t, styrmin.EUNAUTHORIZED, styrmin.ErrorCode(err), "another network is counted apart")
}

func TestThrottledMessageCountsMinutes(t *testing.T) {
	t.Parallel()
	now := time.Date(2026, 1, 1, 12, 0, 0, 0, time.UTC)
	u := &Users{now: func() time.Time { return now }}
	tests := []struct {
		oldest time.Time
		want   string
	}{
		{now, "try again in 15 minutes."},
		{now.Add(-14*time.Minute - 30*time.Second), "try again in 1 minute."},
		{now.Add(-20 * time.Minute), "try again in 1 minute."},
		{now.Add(-10 * time.Minute), "try again in 5 minutes."},
	}
	for _, tt := range tests {
		require.ErrorContains(t, u.throttled(tt.oldest), tt.want)
	}
}

// TestNewUsersHashesWithTheProductionSettingByDefault: only an explicit
// option (which tests pass) makes hashes cheaper than OWASP's setting.
func TestNewUsersHashesWithTheProductionSettingByDefault(t *testing.T) {
	t.Parallel()
	for name, tt := range map[string]struct {
		opts   []UsersOption
		prefix string
	}{
		"default":      {prefix: "$argon2id$v=19$m=19456,t=2,p=1$"},
		"cheap option": {opts: []UsersOption{WithArgon2(CheapArgon2())}, prefix: "$argon2id$v=19$m=8,t=1,p=1$"},
	} {
		t.Run(name, func(t *testing.T) {
			users, err := NewUsers(nil, tt.opts...)
			require.NoError(t, err)
			hash, err := users.hashes.Hash(context.Background(), "a password")
			require.NoError(t, err)
			require.True(t, strings.HasPrefix(hash, tt.prefix), hash)
			require.True(t, strings.HasPrefix(users.dummyHash, tt.prefix), "an unknown username costs what a known one does: %s", users.dummyHash)
		})
	}
}
