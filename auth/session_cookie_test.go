package auth

import (
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

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
			require.Equal(t, want, got)
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
