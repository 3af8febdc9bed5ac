package sso_test

import (
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/styrmin/styrmin/auth"
	"github.com/styrmin/styrmin/sso"
	"github.com/styrmin/styrmin/version"
)

func TestDiscoverySendsStyrminsUserAgent(t *testing.T) {
	t.Parallel()
	agents := make(chan string, 1)
	var issuer string
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		agents <- r.UserAgent()
		json.NewEncoder(w).Encode(map[string]any{"issuer": issuer, "authorization_endpoint": issuer + "/auth",
			"token_endpoint": issuer + "/token", "jwks_uri": issuer + "/keys", "id_token_signing_alg_values_supported": []string{"RS256"}})
	}))
	defer srv.Close()
	issuer = srv.URL

	p, err := sso.New(sso.Config{Issuer: issuer, ClientID: "styrmin", RedirectURL: "https://styrmin.example/auth/callback",
		Roles: sso.RoleGroups{"ops": auth.Admin}}, nil)
	require.NoError(t, err)
	require.NoError(t, p.Discover(t.Context()))
	require.Equal(t, version.UserAgent(), <-agents)
}
