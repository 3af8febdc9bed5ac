package handlers_test

import (
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"net/url"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/styrmin/styrmin/app/apptest"
	"github.com/styrmin/styrmin/auth"
	"github.com/styrmin/styrmin/handlers"
	"github.com/styrmin/styrmin/handlers/handlerstest"
)

// proxyNet is the network of the tests' reverse proxy.
const proxyNet = "10.0.0.0/8"

// behindProxy returns the app with admin as a user, answering through a
// handler that trusts proxyNet's forwarding headers.
func behindProxy(t *testing.T) *handlerstest.App {
	t.Helper()
	a := handlerstest.Setup(t)
	_, _ = a.As(t, "admin", auth.Admin)
	nets, err := handlers.ParseTrustedProxies(proxyNet)
	require.NoError(t, err)
	deps := a.Deps
	deps.TrustedProxies = nets
	a.Echo = handlers.New(deps)
	return a
}

// failUntilThrottled fails MaxFailuresPerAddr sign-ins (for several
// usernames, so the per-address limit is the one reached) as v from peer
// with header, and checks the next attempt is throttled.
func failUntilThrottled(t *testing.T, a *handlerstest.App, v handlerstest.Visitor, peer string, header ...string) {
	t.Helper()
	for i := range auth.MaxFailuresPerAddr {
		name := []string{"admin", "alice", "bob", "carol"}[i%4]
		require.Equal(t, http.StatusUnauthorized, a.SigninFrom(v, peer, name, "guess", header...).Code, "attempt %d", i+1)
	}
	require.Equal(t, http.StatusTooManyRequests, a.SigninFrom(v, peer, "admin", handlerstest.TestPassword, header...).Code)
}

// TestSpoofedForwardedForFromUntrustedPeerChangesNothing: a client that is
// not a trusted proxy cannot escape throttling by inventing X-Forwarded-For,
// whether the server trusts no proxy or trusts others.
func TestSpoofedForwardedForFromUntrustedPeerChangesNothing(t *testing.T) {
	t.Parallel()
	for name, a := range map[string]*handlerstest.App{"no trusted proxies": nil, "trusting " + proxyNet: behindProxy(t)} {
		t.Run(name, func(t *testing.T) {
			if a == nil {
				a = handlerstest.Setup(t)
				_, _ = a.As(t, "admin", auth.Admin)
			}
			attacker := a.Anonymous(t)
			failUntilThrottled(t, a, attacker, "203.0.113.66", "X-Forwarded-For", "198.51.100.1")
			for _, spoofed := range []string{"198.51.100.2", "10.1.2.3", "198.51.100.3, 10.0.0.5"} {
				rec := a.SigninFrom(attacker, "203.0.113.66", "admin", handlerstest.TestPassword, "X-Forwarded-For", spoofed)
				require.Equal(t, http.StatusTooManyRequests, rec.Code, "X-Forwarded-For %q from an untrusted peer", spoofed)
			}
		})
	}
}

// TestClientsBehindOneProxyAreThrottledApart: failures of one client behind
// the trusted proxy do not lock out another client behind the same proxy.
func TestClientsBehindOneProxyAreThrottledApart(t *testing.T) {
	t.Parallel()
	a := behindProxy(t)
	guesser, owner := a.Anonymous(t), a.Anonymous(t)
	failUntilThrottled(t, a, guesser, "10.0.0.5", "X-Forwarded-For", "198.51.100.1")

	// The guesser cannot pose as another client either: the proxy appends
	// the address it saw, which is the rightmost untrusted one.
	rec := a.SigninFrom(guesser, "10.0.0.5", "admin", handlerstest.TestPassword, "X-Forwarded-For", "198.51.100.2, 198.51.100.1")
	require.Equal(t, http.StatusTooManyRequests, rec.Code)

	rec = a.SigninFrom(owner, "10.0.0.5", "admin", handlerstest.TestPassword, "X-Forwarded-For", "198.51.100.7")
	require.Equal(t, http.StatusSeeOther, rec.Code, "another client behind the same proxy signs in")
}

// TestForwardedProtoOnlyFromTrustedProxy: HSTS follows X-Forwarded-Proto
// only when the peer is a trusted proxy.
func TestForwardedProtoOnlyFromTrustedProxy(t *testing.T) {
	t.Parallel()
	a := behindProxy(t)
	for peer, want := range map[string]string{"10.0.0.5": "max-age=31536000; includeSubDomains", "203.0.113.66": ""} {
		req := httptest.NewRequest(http.MethodGet, "/signin", nil)
		req.RemoteAddr = peer + ":40000"
		req.Header.Set("X-Forwarded-Proto", "https")
		rec := httptest.NewRecorder()
		a.Echo.ServeHTTP(rec, req)
		require.Equal(t, http.StatusOK, rec.Code)
		require.Equal(t, want, rec.Header().Get("Strict-Transport-Security"), "peer %s", peer)
	}
}

// TestSessionCookieSecureWithHTTPSExternalURL: behind a proxy that ends
// TLS, the server sees plain HTTP, yet its session cookie is Secure when
// its external URL is https (and not when it is http).
func TestSessionCookieSecureWithHTTPSExternalURL(t *testing.T) {
	t.Parallel()
	for external, secure := range map[string]bool{"https://styrmin.example.com": true, "http://styrmin.test": false} {
		u, err := url.Parse(external)
		require.NoError(t, err)
		env := apptest.New(t, apptest.Options{NoServer: true, NoBundled: true, ExternalURL: u,
			Logger: slog.New(slog.NewTextHandler(io.Discard, nil))})
		a := &handlerstest.App{Env: env, Echo: env.Handler}
		_, _ = a.As(t, "admin", auth.Admin)
		rec := a.SigninFrom(a.Anonymous(t), "10.0.0.5", "admin", handlerstest.TestPassword)
		require.Equal(t, http.StatusSeeOther, rec.Code)
		var cookie *http.Cookie
		for _, c := range rec.Result().Cookies() {
			if c.Name == auth.SessionCookie {
				cookie = c
			}
		}
		require.NotNil(t, cookie, "signing in sets the session cookie")
		require.Equal(t, secure, cookie.Secure, "external URL %s", external)
	}
}

func TestParseTrustedProxies(t *testing.T) {
	t.Parallel()
	nets, err := handlers.ParseTrustedProxies(" 10.0.0.0/8, 192.0.2.7 ,fd00::/8,")
	require.NoError(t, err)
	var got []string
	for _, n := range nets {
		got = append(got, n.String())
	}
	require.Equal(t, []string{"10.0.0.0/8", "192.0.2.7/32", "fd00::/8"}, got)
	for _, bad := range []string{"10.0.0.0/33", "proxy.example.com", "10.0.0/8"} {
		_, err := handlers.ParseTrustedProxies(bad)
		require.ErrorContains(t, err, "trusted proxy", bad)
	}
}
