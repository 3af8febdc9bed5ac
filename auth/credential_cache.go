package auth

import (
	"container/list"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/styrmin/styrmin/db"
	"github.com/styrmin/styrmin/lru"
)

// credentialCacheSize bounds how many sessions, and how many API tokens, one
// server process remembers.
const credentialCacheSize = 10_000

// credentialCacheTTL is how long a remembered credential is trusted without
// asking PostgreSQL again: a safety net, since every change that ends a
// session, revokes a token or alters a user is notified and forgotten at once.
const credentialCacheTTL = 30 * time.Second

// What a notification on db.SessionsChannel names, before ":<id>" (see
// db/migrations/00006_notify.sql and 00008_notify_api_tokens.sql); "all"
// names everything.
const (
	notifySession = "session"
	notifyToken   = "token"
	notifyUser    = "user"
)

// credentialCache remembers live credentials of one kind (sessions or API
// tokens) and their users, so that a request needs no round trip to
// PostgreSQL. It is used only while database notifications are received
// (db.Listener): each one forgets what it names, and losing the connection
// forgets everything and stops the cache until listening again. A lookup
// that started before a change was forgotten does not fill the cache (the
// epoch tells), so a row read just before a sign-out or a revocation cannot
// come back after it. It is safe for concurrent use.
type credentialCache struct {
	// kind is what notifications call one of its credentials (notifySession
	// or notifyToken).
	kind string
	// idle is how long an unused credential stays live; 0 for no limit.
	idle time.Duration
	// touchEvery is how often a credential's last use is written at most.
	touchEvery time.Duration

	mu        sync.Mutex
	listening bool
	// epoch counts what was forgotten; a fill must see the epoch it started in.
	epoch  uint64
	max    int
	ttl    time.Duration
	recent *list.List // of *cachedCredential, the most recently used first
	byHash map[[32]byte]*list.Element
	byID   map[int64]*list.Element
	// stats counts the lookups: a hit needed no round trip to PostgreSQL.
	stats lru.Stats
}

// cachedCredential is one remembered live session or API token.
type cachedCredential struct {
	hash     [32]byte
	id       int64
	user     User
	lastUsed time.Time
	// expires is when it stops working; zero for never.
	expires time.Time
	// until is when it must be read from PostgreSQL again.
	until time.Time
}

// credential is the user and expiry of a remembered API token.
func (cc cachedCredential) credential() Credential {
	c := Credential{User: cc.user, TokenID: cc.id}
	if !cc.expires.IsZero() {
		c.ExpiresAt = &cc.expires
	}
	return c
}

var _ db.Subscriber = (*credentialCache)(nil)

// newCredentialCache returns an empty cache of at most max credentials of
// kind, each trusted for ttl; idle and touchEvery are as in credentialCache.
func newCredentialCache(kind string, idle, touchEvery time.Duration, max int, ttl time.Duration) *credentialCache {
	return &credentialCache{kind: kind, idle: idle, touchEvery: touchEvery, max: max, ttl: ttl,
		recent: list.New(), byHash: map[[32]byte]*list.Element{}, byID: map[int64]*list.Element{}}
}

// get returns the live credential with hash at now, if remembered, and
// whether its last use is due to be written (then it counts as written).
func (c *credentialCache) get(hash [32]byte, now time.Time) (cc cachedCredential, touch, ok bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	el, ok := c.byHash[hash]
	if !ok {
		c.stats.Misses++
		return cachedCredential{}, false, false
	}
	e := el.Value.(*cachedCredential)
	expired := !e.expires.IsZero() && !now.Before(e.expires)
	idle := c.idle > 0 && !e.lastUsed.After(now.Add(-c.idle))
	if !now.Before(e.until) || expired || idle {
		c.remove(el)
		c.stats.Misses++
		return cachedCredential{}, false, false
	}
	c.stats.Hits++
	c.recent.MoveToFront(el)
	if now.Sub(e.lastUsed) >= c.touchEvery {
		e.lastUsed, touch = now, true
	}
	return *e, touch, true
}

// begin returns the epoch a lookup in PostgreSQL starts in, and whether its
// result may fill the cache at all.
func (c *credentialCache) begin() (epoch uint64, ok bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.epoch, c.listening
}

// put remembers a live credential read in PostgreSQL during epoch at now,
// unless something was forgotten since the read began.
func (c *credentialCache) put(epoch uint64, now time.Time, cc cachedCredential) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if !c.listening || epoch != c.epoch {
		return
	}
	if el, ok := c.byHash[cc.hash]; ok {
		c.remove(el)
	}
	cc.until = now.Add(c.ttl)
	el := c.recent.PushFront(&cc)
	c.byHash[cc.hash], c.byID[cc.id] = el, el
	for c.recent.Len() > c.max {
		c.remove(c.recent.Back())
	}
}

// forgetHash forgets the credential whose secret has hash.
func (c *credentialCache) forgetHash(hash [32]byte) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.epoch++
	if el, ok := c.byHash[hash]; ok {
		c.remove(el)
	}
}

// forgetID forgets the credential with id.
func (c *credentialCache) forgetID(id int64) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.epoch++
	if el, ok := c.byID[id]; ok {
		c.remove(el)
	}
}

// forgetUser forgets every credential of the user with id.
func (c *credentialCache) forgetUser(id int64) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.epoch++
	for el := c.recent.Front(); el != nil; {
		next := el.Next()
		if el.Value.(*cachedCredential).user.ID == id {
			c.remove(el)
		}
		el = next
	}
}

// forgetAll forgets every credential.
func (c *credentialCache) forgetAll() {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.clear()
}

// Listening turns the cache on once notifications are received, and off
// (forgetting everything) when they may be missed.
func (c *credentialCache) Listening(on bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.listening = on
	c.clear()
}

// Notify forgets what a notification on db.SessionsChannel names; a
// credential of the other kind names nothing here, and a payload it does not
// understand forgets everything.
func (c *credentialCache) Notify(payload string) {
	kind, idText, _ := strings.Cut(payload, ":")
	id, err := strconv.ParseInt(idText, 10, 64)
	switch {
	case err != nil:
		c.forgetAll()
	case kind == c.kind:
		c.forgetID(id)
	case kind == notifyUser:
		c.forgetUser(id)
	case kind == notifySession || kind == notifyToken:
		// a credential of the other kind: none of ours
	default:
		c.forgetAll()
	}
}

// lookups returns the lookups so far (lru.Stats, as the other caches count them).
func (c *credentialCache) lookups() lru.Stats {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.stats
}

// len returns how many credentials are remembered.
func (c *credentialCache) len() int {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.recent.Len()
}

// clear forgets everything; c.mu is held.
func (c *credentialCache) clear() {
	c.epoch++
	c.recent.Init()
	clear(c.byHash)
	clear(c.byID)
}

// remove forgets one credential; c.mu is held.
func (c *credentialCache) remove(el *list.Element) {
	e := c.recent.Remove(el).(*cachedCredential)
	delete(c.byHash, e.hash)
	delete(c.byID, e.id)
}
