package auth

import (
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

// newTestCache returns a listening session cache of at most max sessions.
func newTestCache(max int) *credentialCache {
	c := newCredentialCache(notifySession, IdleTimeout, lastSeenPrecision, max, time.Minute)
	c.Listening(true)
	return c
}

func TestCredentialCacheIsBounded(t *testing.T) {
	t.Parallel()
	c := newTestCache(3)
	now := time.Now()
	for i := range 5 {
		epoch, ok := c.begin()
		require.True(t, ok)
		c.put(epoch, now, cachedCredential{hash: [32]byte{byte(i)}, id: int64(i), lastUsed: now, expires: now.Add(time.Hour)})
	}
	require.Equal(t, 3, c.len())
	require.Len(t, c.byID, 3)
	for i, want := range []bool{false, false, true, true, true} {
		_, _, ok := c.get([32]byte{byte(i)}, now)
		require.Equal(t, want, ok, "credential %d", i)
	}
}

func TestCredentialCacheForgetsExpiredAndIdleCredentials(t *testing.T) {
	t.Parallel()
	now := time.Now()
	tests := []struct {
		name       string
		idle       time.Duration
		lastUsed   time.Time
		expires    time.Time
		at         time.Time
		remembered bool
	}{
		{name: "live", idle: time.Hour, lastUsed: now, expires: now.Add(time.Hour), at: now.Add(time.Second), remembered: true},
		{name: "expired", idle: time.Hour, lastUsed: now, expires: now.Add(time.Second), at: now.Add(time.Second)},
		{name: "idle", idle: time.Minute, lastUsed: now.Add(-time.Minute), expires: now.Add(time.Hour), at: now},
		{name: "no expiry, no idle limit", lastUsed: now.Add(-240 * time.Hour), at: now.Add(time.Second), remembered: true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c := newCredentialCache(notifyToken, tt.idle, time.Minute, 10, time.Minute)
			c.Listening(true)
			epoch, _ := c.begin()
			c.put(epoch, now, cachedCredential{hash: [32]byte{1}, id: 1, lastUsed: tt.lastUsed, expires: tt.expires})
			_, _, ok := c.get([32]byte{1}, tt.at)
			require.Equal(t, tt.remembered, ok)
		})
	}
}

func TestCredentialCacheSaysWhenALastUseIsDueToBeWritten(t *testing.T) {
	t.Parallel()
	c := newCredentialCache(notifyToken, 0, time.Minute, 10, time.Hour)
	c.Listening(true)
	now := time.Now()
	epoch, _ := c.begin()
	c.put(epoch, now, cachedCredential{hash: [32]byte{1}, id: 1, lastUsed: now, expires: now.Add(time.Hour)})
	for _, step := range []struct {
		at    time.Duration
		touch bool
	}{{30 * time.Second, false}, {time.Minute, true}, {90 * time.Second, false}, {2 * time.Minute, true}} {
		_, touch, ok := c.get([32]byte{1}, now.Add(step.at))
		require.True(t, ok)
		require.Equal(t, step.touch, touch, "at +%s", step.at)
	}
}

// TestCredentialCacheRefusesStaleFills: a lookup that read the database
// before a credential was ended (here or, notified, elsewhere) must not put
// it back.
func TestCredentialCacheRefusesStaleFills(t *testing.T) {
	t.Parallel()
	now := time.Now()
	live := cachedCredential{hash: [32]byte{1}, id: 1, user: User{ID: 7}, lastUsed: now, expires: now.Add(time.Hour)}
	forgets := map[string]func(*credentialCache){
		"ended here":           func(c *credentialCache) { c.forgetHash(live.hash) },
		"ended elsewhere":      func(c *credentialCache) { c.Notify("session:1") },
		"user changed":         func(c *credentialCache) { c.Notify("user:7") },
		"unknown notification": func(c *credentialCache) { c.Notify("what?") },
		"listener lost":        func(c *credentialCache) { c.Listening(false) },
		"listener back":        func(c *credentialCache) { c.Listening(false); c.Listening(true) },
	}
	for name, forget := range forgets {
		t.Run(name, func(t *testing.T) {
			c := newTestCache(10)
			epoch, ok := c.begin()
			require.True(t, ok)
			forget(c)
			c.put(epoch, now, live)
			_, _, ok = c.get(live.hash, now)
			require.False(t, ok)
		})
	}
}

func TestCredentialCacheForgetsWhatNotificationsName(t *testing.T) {
	t.Parallel()
	now := time.Now()
	tests := []struct {
		kind    string
		payload string
		kept    []int64 // credential ids left, of 1 and 2 (user 7) and 3 (user 8)
	}{
		{kind: notifySession, payload: "session:2", kept: []int64{1, 3}},
		{kind: notifySession, payload: "token:2", kept: []int64{1, 2, 3}},
		{kind: notifyToken, payload: "token:2", kept: []int64{1, 3}},
		{kind: notifyToken, payload: "session:2", kept: []int64{1, 2, 3}},
		{kind: notifySession, payload: "user:7", kept: []int64{3}},
		{kind: notifyToken, payload: "user:7", kept: []int64{3}},
		{kind: notifySession, payload: "user:9", kept: []int64{1, 2, 3}},
		{kind: notifyToken, payload: "all", kept: nil},
		{kind: notifySession, payload: "session:x", kept: nil},
		{kind: notifyToken, payload: "group:2", kept: nil},
	}
	for _, tt := range tests {
		t.Run(tt.kind+" cache, "+tt.payload, func(t *testing.T) {
			c := newCredentialCache(tt.kind, 0, time.Minute, 10, time.Minute)
			c.Listening(true)
			for id, user := range map[int64]int64{1: 7, 2: 7, 3: 8} {
				epoch, _ := c.begin()
				c.put(epoch, now, cachedCredential{hash: [32]byte{byte(id)}, id: id, user: User{ID: user}, lastUsed: now, expires: now.Add(time.Hour)})
			}
			c.Notify(tt.payload)
			var kept []int64
			for id := range int64(4) {
				if _, _, ok := c.get([32]byte{byte(id)}, now); ok {
					kept = append(kept, id)
				}
			}
			require.Equal(t, tt.kept, kept)
		})
	}
}
