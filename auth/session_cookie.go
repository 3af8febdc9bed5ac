package auth

import (
	"encoding/json"
	"fmt"
	"sync"
	"time"

	"github.com/gorilla/securecookie"
)

// cookieContent is what the session cookie carries, before it is encrypted
// and signed: the keys of Load and Save, as compact JSON.
type cookieContent struct {
	SID   string   `json:"s,omitempty"`
	CSRF  string   `json:"c,omitempty"`
	Flash []string `json:"f,omitempty"`
}

// cookieSerializer encodes the session cookie's values as JSON: gob, the
// default, sends its type definitions in every cookie and compiles a decoder
// for each, which cost more than the rest of a signed-in request. It reads
// the values of cookies written with gob before, too. It only ever sees
// values that passed the cookie's signature check.
type cookieSerializer struct{}

var _ securecookie.Serializer = cookieSerializer{}

// Serialize encodes the session values (a map[any]any) of Save.
func (cookieSerializer) Serialize(src any) ([]byte, error) {
	values, ok := src.(map[any]any)
	if !ok {
		return nil, fmt.Errorf("auth: session cookie values are a %T, not a map", src)
	}
	var c cookieContent
	c.SID, _ = values["sid"].(string)
	c.CSRF, _ = values["csrf"].(string)
	c.Flash, _ = values["flash"].([]string)
	return json.Marshal(c)
}

// Deserialize decodes session values into dst, a *map[any]any.
func (cookieSerializer) Deserialize(src []byte, dst any) error {
	values, ok := dst.(*map[any]any)
	if !ok {
		return fmt.Errorf("auth: session cookie values go into a %T, not a map", dst)
	}
	var c cookieContent
	if len(src) == 0 || src[0] != '{' || json.Unmarshal(src, &c) != nil {
		return securecookie.GobEncoder{}.Deserialize(src, dst)
	}
	if *values == nil {
		*values = map[any]any{}
	}
	if c.SID != "" {
		(*values)["sid"] = c.SID
	}
	if c.CSRF != "" {
		(*values)["csrf"] = c.CSRF
	}
	if len(c.Flash) > 0 {
		(*values)["flash"] = c.Flash
	}
	return nil
}

// cookieCacheSize bounds how many decoded cookies are remembered.
const cookieCacheSize = 10_000

// cookieCacheTTL is how long a decoded cookie is remembered. A cookie's value
// never changes meaning, but its signature carries a time after which it is
// refused (AbsoluteLifetime); remembering it for a minute may honour it a
// minute longer, which the server-side session (checked on every request,
// with its own expiry) makes harmless.
const cookieCacheTTL = time.Minute

// cookieCache remembers the content of session cookies whose signature was
// checked, by the cookie's exact value, so that the next request with the
// same cookie skips the decryption and the signature check. When full it
// starts afresh. It is safe for concurrent use.
type cookieCache struct {
	mu      sync.Mutex
	max     int
	ttl     time.Duration
	entries map[string]cookieEntry
}

// cookieEntry is one remembered cookie.
type cookieEntry struct {
	content cookieContent
	until   time.Time
}

// newCookieCache returns an empty cache of at most max cookies, each kept for ttl.
func newCookieCache(max int, ttl time.Duration) *cookieCache {
	return &cookieCache{max: max, ttl: ttl, entries: map[string]cookieEntry{}}
}

// get returns the content of the cookie with value, if remembered at now.
func (c *cookieCache) get(value string, now time.Time) (cookieContent, bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	e, ok := c.entries[value]
	if !ok || !now.Before(e.until) {
		return cookieContent{}, false
	}
	return e.content, true
}

// put remembers the content of a cookie whose signature was checked at now.
// Content with flashes is not remembered: it is shown once.
func (c *cookieCache) put(value string, content cookieContent, now time.Time) {
	if len(content.Flash) > 0 {
		return
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if len(c.entries) >= c.max {
		clear(c.entries)
	}
	c.entries[value] = cookieEntry{content: content, until: now.Add(c.ttl)}
}
