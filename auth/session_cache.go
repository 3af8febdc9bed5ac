package auth

import (
	"container/list"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/styrmin/styrmin/db"
)

// sessionCacheSize bounds how many sessions one server process remembers.
const sessionCacheSize = 10_000

// sessionCacheTTL is how long a remembered session is trusted without asking
// PostgreSQL again: a safety net, since every change that ends a session or
// alters its user is notified and forgotten at once.
const sessionCacheTTL = 30 * time.Second

// sessionCache remembers live sessions and their users, so that a signed-in
// request needs no round trip to PostgreSQL. It is used only while database
// notifications are received (db.Listener): each one forgets what it names,
// and losing the connection forgets everything and stops the cache until
// listening again. A lookup that started before a change was forgotten
// does not fill the cache (the epoch tells), so a row read just before a
// sign-out cannot come back after it. It is safe for concurrent use.
type sessionCache struct {
	mu        sync.Mutex
	listening bool
	// epoch counts what was forgotten; a fill must see the epoch it started in.
	epoch  uint64
	max    int
	ttl    time.Duration
	recent *list.List // of *cachedSession, the most recently used first
	byHash map[[32]byte]*list.Element
	byID   map[int64]*list.Element
}

// cachedSession is one remembered live session.
type cachedSession struct {
	hash     [32]byte
	id       int64
	user     User
	lastSeen time.Time
	expires  time.Time
	// until is when it must be read from PostgreSQL again.
	until time.Time
}

var _ db.Subscriber = (*sessionCache)(nil)

// newSessionCache returns an empty cache of at most max sessions, each trusted for ttl.
func newSessionCache(max int, ttl time.Duration) *sessionCache {
	return &sessionCache{max: max, ttl: ttl, recent: list.New(), byHash: map[[32]byte]*list.Element{}, byID: map[int64]*list.Element{}}
}

// get returns the live session with hash at now, if remembered, and whether
// its last-seen time is due to be written (then it counts as written).
func (c *sessionCache) get(hash [32]byte, now time.Time) (cs cachedSession, touch, ok bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	el, ok := c.byHash[hash]
	if !ok {
		return cachedSession{}, false, false
	}
	e := el.Value.(*cachedSession)
	if !now.Before(e.until) || !now.Before(e.expires) || !e.lastSeen.After(now.Add(-IdleTimeout)) {
		c.remove(el)
		return cachedSession{}, false, false
	}
	c.recent.MoveToFront(el)
	if now.Sub(e.lastSeen) >= lastSeenPrecision {
		e.lastSeen, touch = now, true
	}
	return *e, touch, true
}

// begin returns the epoch a lookup in PostgreSQL starts in, and whether its
// result may fill the cache at all.
func (c *sessionCache) begin() (epoch uint64, ok bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.epoch, c.listening
}

// put remembers a live session read in PostgreSQL during epoch at now,
// unless something was forgotten since the read began.
func (c *sessionCache) put(epoch uint64, now time.Time, cs cachedSession) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if !c.listening || epoch != c.epoch {
		return
	}
	if el, ok := c.byHash[cs.hash]; ok {
		c.remove(el)
	}
	cs.until = now.Add(c.ttl)
	el := c.recent.PushFront(&cs)
	c.byHash[cs.hash], c.byID[cs.id] = el, el
	for c.recent.Len() > c.max {
		c.remove(c.recent.Back())
	}
}

// forgetHash forgets the session whose token has hash.
func (c *sessionCache) forgetHash(hash [32]byte) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.epoch++
	if el, ok := c.byHash[hash]; ok {
		c.remove(el)
	}
}

// forgetSession forgets the session with id.
func (c *sessionCache) forgetSession(id int64) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.epoch++
	if el, ok := c.byID[id]; ok {
		c.remove(el)
	}
}

// forgetUser forgets every session of the user with id.
func (c *sessionCache) forgetUser(id int64) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.epoch++
	for el := c.recent.Front(); el != nil; {
		next := el.Next()
		if el.Value.(*cachedSession).user.ID == id {
			c.remove(el)
		}
		el = next
	}
}

// forgetAll forgets every session.
func (c *sessionCache) forgetAll() {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.clear()
}

// Listening turns the cache on once notifications are received, and off
// (forgetting everything) when they may be missed.
func (c *sessionCache) Listening(on bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.listening = on
	c.clear()
}

// Notify forgets what a notification on db.SessionsChannel names; a payload
// it does not understand forgets everything.
func (c *sessionCache) Notify(payload string) {
	kind, idText, _ := strings.Cut(payload, ":")
	id, err := strconv.ParseInt(idText, 10, 64)
	switch {
	case kind == "session" && err == nil:
		c.forgetSession(id)
	case kind == "user" && err == nil:
		c.forgetUser(id)
	default:
		c.forgetAll()
	}
}

// len returns how many sessions are remembered.
func (c *sessionCache) len() int {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.recent.Len()
}

// clear forgets everything; c.mu is held.
func (c *sessionCache) clear() {
	c.epoch++
	c.recent.Init()
	clear(c.byHash)
	clear(c.byID)
}

// remove forgets one session; c.mu is held.
func (c *sessionCache) remove(el *list.Element) {
	e := c.recent.Remove(el).(*cachedSession)
	delete(c.byHash, e.hash)
	delete(c.byID, e.id)
}
