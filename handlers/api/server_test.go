package api_test

import (
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"os"
	"strings"
	"testing"

	"github.com/styrmin/styrmin/handlers/handlerstest"

	"github.com/stretchr/testify/require"

	"github.com/styrmin/styrmin/api"
	"github.com/styrmin/styrmin/auth"
)

// decoded decodes a JSON answer, checking its status.
func decoded[T any](t *testing.T, rec *httptest.ResponseRecorder, status int) T {
	t.Helper()
	require.Equal(t, status, rec.Code, rec.Body.String())
	var v T
	require.NoError(t, json.Unmarshal(rec.Body.Bytes(), &v))
	return v
}

// problemOf decodes a problem details answer, checking its media type.
func problemOf(t *testing.T, rec *httptest.ResponseRecorder) api.Problem {
	t.Helper()
	require.Equal(t, "application/problem+json", rec.Header().Get("Content-Type"), rec.Body.String())
	var p api.Problem
	require.NoError(t, json.Unmarshal(rec.Body.Bytes(), &p))
	require.Equal(t, rec.Code, p.Status)
	return p
}

func TestAPIActsAsTheTokensUser(t *testing.T) {
	t.Parallel()
	a := handlerstest.Setup(t)
	token := a.TokenFor(t, "olga", auth.Operator)

	rec := a.Call(t, token, http.MethodGet, "/api/v1/me", nil)
	require.Equal(t, http.StatusOK, rec.Code, rec.Body.String())
	var me api.User
	require.NoError(t, json.Unmarshal(rec.Body.Bytes(), &me))
	require.Equal(t, "olga", me.Username)
	require.Equal(t, api.Role("operator"), me.Role)
}

func TestAPIRefusals(t *testing.T) {
	t.Parallel()
	a := handlerstest.Setup(t)
	reader := a.TokenFor(t, "rita", auth.ReadOnly)
	// A browser session is not an API credential: the cookie alone gets 401.
	browser, _ := a.As(t, "bert", auth.Admin)

	cases := []struct {
		why, token, method, target string
		header                     map[string]string
		status                     int
		code                       api.ProblemCode
	}{
		{"no token", "", http.MethodGet, "/api/v1/me", nil, http.StatusUnauthorized, "unauthorized"},
		{"an unknown token", "stp_nope", http.MethodGet, "/api/v1/me", nil, http.StatusUnauthorized, "unauthorized"},
		{"an action token", "sta_" + strings.TrimPrefix(reader, auth.APITokenPrefix), http.MethodGet, "/api/v1/me", nil, http.StatusUnauthorized, "unauthorized"},
		{"a read-only user creating a user", reader, http.MethodPost, "/api/v1/users", nil, http.StatusForbidden, "forbidden"},
		{"an operation that does not exist", reader, http.MethodGet, "/api/v1/nothing-here", nil, http.StatusNotFound, "not_found"},
	}
	for _, tc := range cases {
		rec := a.Call(t, tc.token, tc.method, tc.target, nil)
		require.Equal(t, tc.status, rec.Code, tc.why)
		p := problemOf(t, rec)
		require.Equal(t, tc.code, p.Code, tc.why)
		require.NotEmpty(t, p.Detail, tc.why)
	}

	req := httptest.NewRequest(http.MethodGet, "/api/v1/me", nil)
	req.AddCookie(browser.Cookie)
	rec := httptest.NewRecorder()
	a.Echo.ServeHTTP(rec, req)
	require.Equal(t, http.StatusUnauthorized, rec.Code, "a session cookie does not reach the API")
}

func TestAPIInvalidInputIsAProblemWithFields(t *testing.T) {
	t.Parallel()
	a := handlerstest.Setup(t)
	admin := a.TokenFor(t, "ada", auth.Admin)

	rec := a.Call(t, admin, http.MethodPost, "/api/v1/users", map[string]string{"username": "a b", "role": "operator", "password": "a long password"})
	require.Equal(t, http.StatusBadRequest, rec.Code)
	p := problemOf(t, rec)
	require.Equal(t, api.ProblemCode("invalid"), p.Code)
	require.NotNil(t, p.Fields)
	require.Contains(t, *p.Fields, "username")
}

func TestAPIOpenAPIDocumentIsServed(t *testing.T) {
	t.Parallel()
	a := handlerstest.Setup(t)
	rec := a.Call(t, "", http.MethodGet, "/api/v1/openapi.json", nil)
	require.Equal(t, http.StatusOK, rec.Code)
	var doc struct {
		OpenAPI string         `json:"openapi"`
		Paths   map[string]any `json:"paths"`
	}
	require.NoError(t, json.Unmarshal(rec.Body.Bytes(), &doc))
	require.Equal(t, "3.0.3", doc.OpenAPI)
	require.Contains(t, doc.Paths, "/deployments/{name}/upgrade")

	committed, err := os.ReadFile("../../docs/openapi.json")
	require.NoError(t, err)
	require.Equal(t, string(committed), rec.Body.String(), "docs/openapi.json is the served document (make generate writes it)")
}
