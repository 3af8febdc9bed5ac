package handlers

import (
	"context"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"os"
	"regexp"
	"strings"
	"sync"
	"testing"

	"github.com/getkin/kin-openapi/openapi3filter"
	"github.com/stretchr/testify/require"

	"github.com/styrmin/styrmin/api"
	"github.com/styrmin/styrmin/auth"
)

// tokenFor creates a user with role and returns one of their API tokens.
func (a *app) tokenFor(t *testing.T, name string, role auth.Role) string {
	t.Helper()
	_, u := a.as(t, name, role)
	created, err := a.deps.APITokens.Create(context.Background(), u, "test", nil)
	require.NoError(t, err)
	return created.Secret
}

// call makes an API request with token (none when empty) and a JSON body
// (none when nil).
func (a *app) call(t *testing.T, token, method, target string, body any) *httptest.ResponseRecorder {
	t.Helper()
	var req *http.Request
	if body == nil {
		req = httptest.NewRequest(method, target, nil)
	} else {
		b, err := json.Marshal(body)
		require.NoError(t, err)
		req = httptest.NewRequest(method, target, strings.NewReader(string(b)))
		req.Header.Set("Content-Type", "application/json")
	}
	if token != "" {
		req.Header.Set("Authorization", "Bearer "+token)
	}
	rec := httptest.NewRecorder()
	a.e.ServeHTTP(rec, req)
	checkAPIResponse(t, req, rec)
	return rec
}

// apiDocRouter finds a request's operation in the OpenAPI document, for
// checking the answers the tests get.
var apiDocRouter = sync.OnceValues(apiRouter)

// checkAPIResponse fails the test when an answer of the API is not one the
// OpenAPI document describes: its status, media type and body, problems
// included. An answer for an address that is no operation must be a problem.
func checkAPIResponse(t *testing.T, req *http.Request, rec *httptest.ResponseRecorder) {
	t.Helper()
	if !strings.HasPrefix(req.URL.Path, apiPrefix+"/") || req.URL.Path == apiPrefix+"/openapi.json" {
		return
	}
	router, err := apiDocRouter()
	require.NoError(t, err)
	route, params, err := apiRouteOf(router, req)
	if err != nil {
		doc, err := api.GetSpec()
		require.NoError(t, err)
		require.Equal(t, "application/problem+json", rec.Header().Get("Content-Type"), "%s %s is no operation: its answer is a problem", req.Method, req.URL)
		var body any
		require.NoError(t, json.Unmarshal(rec.Body.Bytes(), &body))
		require.NoError(t, doc.Components.Schemas["Problem"].Value.VisitJSON(body), "%s %s answered a problem the document does not describe: %s", req.Method, req.URL, rec.Body)
		return
	}
	in := &openapi3filter.ResponseValidationInput{
		RequestValidationInput: &openapi3filter.RequestValidationInput{Request: req, PathParams: params, Route: route},
		Status:                 rec.Code,
		Header:                 rec.Header(),
		Options:                &openapi3filter.Options{IncludeResponseStatus: true},
	}
	in.SetBodyBytes(rec.Body.Bytes())
	require.NoError(t, openapi3filter.ValidateResponse(req.Context(), in), "%s %s answered %d, which the OpenAPI document does not describe: %s", req.Method, req.URL, rec.Code, rec.Body)
}

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
	a := setup(t)
	token := a.tokenFor(t, "olga", auth.Operator)

	rec := a.call(t, token, http.MethodGet, "/api/v1/me", nil)
	require.Equal(t, http.StatusOK, rec.Code, rec.Body.String())
	var me api.User
	require.NoError(t, json.Unmarshal(rec.Body.Bytes(), &me))
	require.Equal(t, "olga", me.Username)
	require.Equal(t, api.Role("operator"), me.Role)
}

func TestAPIRefusals(t *testing.T) {
	t.Parallel()
	a := setup(t)
	reader := a.tokenFor(t, "rita", auth.ReadOnly)
	// A browser session is not an API credential: the cookie alone gets 401.
	browser, _ := a.as(t, "bert", auth.Admin)

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
		rec := a.call(t, tc.token, tc.method, tc.target, nil)
		require.Equal(t, tc.status, rec.Code, tc.why)
		p := problemOf(t, rec)
		require.Equal(t, tc.code, p.Code, tc.why)
		require.NotEmpty(t, p.Detail, tc.why)
	}

	req := httptest.NewRequest(http.MethodGet, "/api/v1/me", nil)
	req.AddCookie(browser.cookie)
	rec := httptest.NewRecorder()
	a.e.ServeHTTP(rec, req)
	require.Equal(t, http.StatusUnauthorized, rec.Code, "a session cookie does not reach the API")
}

func TestAPIInvalidInputIsAProblemWithFields(t *testing.T) {
	t.Parallel()
	a := setup(t)
	admin := a.tokenFor(t, "ada", auth.Admin)

	rec := a.call(t, admin, http.MethodPost, "/api/v1/users", map[string]string{"username": "a b", "role": "operator", "password": "a long password"})
	require.Equal(t, http.StatusBadRequest, rec.Code)
	p := problemOf(t, rec)
	require.Equal(t, api.ProblemCode("invalid"), p.Code)
	require.NotNil(t, p.Fields)
	require.Contains(t, *p.Fields, "username")
}

func TestAPIOpenAPIDocumentIsServed(t *testing.T) {
	t.Parallel()
	a := setup(t)
	rec := a.call(t, "", http.MethodGet, "/api/v1/openapi.json", nil)
	require.Equal(t, http.StatusOK, rec.Code)
	var doc struct {
		OpenAPI string         `json:"openapi"`
		Paths   map[string]any `json:"paths"`
	}
	require.NoError(t, json.Unmarshal(rec.Body.Bytes(), &doc))
	require.Equal(t, "3.0.3", doc.OpenAPI)
	require.Contains(t, doc.Paths, "/deployments/{name}/upgrade")

	committed, err := os.ReadFile("../docs/openapi.json")
	require.NoError(t, err)
	require.Equal(t, string(committed), rec.Body.String(), "docs/openapi.json is the served document (make generate writes it)")
}

// TestTheDocumentSaysWhoMayCallEachOperation checks each operation's
// x-styrmin-role in api/openapi.yaml against the permission table, which is
// what the server enforces: the document tells script authors the truth.
func TestTheDocumentSaysWhoMayCallEachOperation(t *testing.T) {
	t.Parallel()
	doc, err := api.GetSpec()
	require.NoError(t, err)
	least := map[string]auth.Role{}
	for _, r := range routes(Deps{}) {
		if r.api {
			least[r.method+" "+r.path] = r.least
		}
	}
	pathParam := regexp.MustCompile(`\{([^}]+)\}`)
	operations := 0
	for path, item := range doc.Paths.Map() {
		for method, op := range item.Operations() {
			key := method + " " + apiPrefix + pathParam.ReplaceAllString(path, ":$1")
			role, ok := least[key]
			require.True(t, ok, "%s (%s) has no line in the permission table", key, op.OperationID)
			require.Equal(t, role.String(), op.Extensions["x-styrmin-role"], "%s (%s): the document's role", key, op.OperationID)
			operations++
		}
	}
	require.Equal(t, len(least), operations, "every API line of the table is an operation of the document")
}
