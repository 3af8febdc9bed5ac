package auth

import (
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/gorilla/securecookie"
	"github.com/stretchr/testify/require"
)

// withSerializer has s write (and read) cookies with sz.
func withSerializer(s *Sessions, sz securecookie.Serializer) {
	for _, codec := range s.store.Codecs {
		codec.(*securecookie.SecureCookie).SetSerializer(sz)
	}
}

// TestSessionCookieRoundTrips: what Save writes, Load reads back, in the
// JSON the cookie now holds and from a cookie written with gob before.
func TestSessionCookieRoundTrips(t *testing.T) {
	t.Parallel()
	for name, writer := range map[string]securecookie.Serializer{"json": cookieSerializer{}, "gob, before": securecookie.GobEncoder{}} {
		t.Run(name, func(t *testing.T) {
			s, err := NewSessions([]byte(strings.Repeat("k", 32)), nil)
			require.NoError(t, err)
			want := &Session{CSRF: "csrf-token", token: "session-token"}
			want.AddFlash("success", "Saved")
			req := httptest.NewRequest(http.MethodGet, "/", nil)
			rec := httptest.NewRecorder()
			withSerializer(s, writer)
			require.NoError(t, s.Save(rec, req, want))
			withSerializer(s, cookieSerializer{})

			req.AddCookie(rec.Result().Cookies()[0])
			got := s.Load(req)
			require.Equal(t, want.CSRF, got.CSRF)
			require.Equal(t, want.token, got.token)
			require.Equal(t, want.flashes, got.flashes)
		})
	}
}

func TestSessionCookieIsCompactJSON(t *testing.T) {
	t.Parallel()
	data, err := cookieSerializer{}.Serialize(map[any]any{"sid": "a", "csrf": "b"})
	require.NoError(t, err)
	require.JSONEq(t, `{"s":"a","c":"b"}`, string(data))
	_, err = cookieSerializer{}.Serialize("not a map")
	require.Error(t, err)
}

// TestUnchangedSessionIsNotWrittenAgain: a cookie is sent when the session
// changes (sign-in, sign-out, flashes, a new CSRF token), not on every request.
func TestUnchangedSessionIsNotWrittenAgain(t *testing.T) {
	t.Parallel()
	s, err := NewSessions([]byte(strings.Repeat("k", 32)), nil)
	require.NoError(t, err)
	save := func(req *http.Request, sess *Session) []*http.Cookie {
		rec := httptest.NewRecorder()
		require.NoError(t, s.Save(rec, req, sess))
		return rec.Result().Cookies()
	}
	fresh := httptest.NewRequest(http.MethodGet, "/", nil)
	cookies := save(fresh, s.Load(fresh))
	require.Len(t, cookies, 1, "a new visitor gets a cookie")

	again := func() (*http.Request, *Session) {
		req := httptest.NewRequest(http.MethodGet, "/", nil)
		req.AddCookie(cookies[0])
		return req, s.Load(req)
	}
	req, sess := again()
	require.Empty(t, save(req, sess), "nothing changed")

	req, sess = again()
	sess.AddFlash("success", "Saved")
	cookies = save(req, sess)
	require.Len(t, cookies, 1, "a flash is written")
	req, sess = again()
	require.Len(t, sess.TakeFlashes(), 1)
	cookies = save(req, sess)
	require.Len(t, cookies, 1, "and taken away once shown")
	req, sess = again()
	require.Empty(t, save(req, sess))

	req, sess = again()
	sess.token = "signed-in"
	require.Len(t, save(req, sess), 1, "signing in is written")
	req, sess = again()
	sess.anonymous()
	require.Len(t, save(req, sess), 1, "signing out is written")
}

func TestCookieCache(t *testing.T) {
	t.Parallel()
	now := time.Now()
	c := newCookieCache(2, time.Minute)
	c.put("a", cookieContent{SID: "1"}, now)
	c.put("f", cookieContent{SID: "2", Flash: []string{"x"}}, now)
	got, ok := c.get("a", now.Add(59*time.Second))
	require.True(t, ok)
	require.Equal(t, "1", got.SID)
	_, ok = c.get("a", now.Add(time.Minute))
	require.False(t, ok, "forgotten after its TTL")
	_, ok = c.get("f", now)
	require.False(t, ok, "flashes are shown once, never remembered")

	c.put("b", cookieContent{SID: "2"}, now)
	c.put("c", cookieContent{SID: "3"}, now)
	require.LessOrEqual(t, len(c.entries), 2, "bounded")
}

// TestForgedCookieIsNotRemembered: only cookies whose signature was checked
// are remembered, so a cookie changed by one byte stays anonymous.
func TestForgedCookieIsNotRemembered(t *testing.T) {
	t.Parallel()
	s, err := NewSessions([]byte(strings.Repeat("k", 32)), nil)
	require.NoError(t, err)
	req := httptest.NewRequest(http.MethodGet, "/", nil)
	rec := httptest.NewRecorder()
	require.NoError(t, s.Save(rec, req, &Session{CSRF: "csrf", token: "token"}))
	cookie := rec.Result().Cookies()[0]
	for range 2 {
		loaded := s.Load(requestWithCookie(cookie))
		require.Equal(t, "token", loaded.token, "the first load decodes, the second remembers")
	}
	forged := *cookie
	forged.Value = forged.Value[:len(forged.Value)-2] + "AA"
	for range 2 {
		require.Empty(t, s.Load(requestWithCookie(&forged)).token)
	}
	require.Len(t, s.cookies.entries, 1)
}

func requestWithCookie(c *http.Cookie) *http.Request {
	req := httptest.NewRequest(http.MethodGet, "/", nil)
	req.AddCookie(c)
	return req
}
