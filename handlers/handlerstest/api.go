package handlerstest

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/getkin/kin-openapi/openapi3"
	"github.com/getkin/kin-openapi/openapi3filter"
	"github.com/stretchr/testify/require"
	oapi "github.com/styrmin/styrmin/api"
	"github.com/styrmin/styrmin/auth"
	"github.com/styrmin/styrmin/handlers/api"
)

// TokenFor creates a user with role and returns one of their API tokens.
func (a *App) TokenFor(t *testing.T, name string, role auth.Role) string {
	t.Helper()
	_, u := a.As(t, name, role)
	return a.TokenOf(t, u)
}

// TokenOf returns a new API token of u.
func (a *App) TokenOf(t *testing.T, u auth.User) string {
	t.Helper()
	created, err := a.Deps.APITokens.Create(context.Background(), auth.Credential{User: u}, "test", nil)
	require.NoError(t, err)
	return created.Secret
}

// Call makes an API request with token (none when empty) and a JSON body
// (none when nil).
func (a *App) Call(t *testing.T, token, method, target string, body any) *httptest.ResponseRecorder {
	t.Helper()
	return a.CallFrom(t, "", token, method, target, body)
}

// CallFrom is Call from the client address (the TCP peer; "" is
// httptest's 192.0.2.1).
func (a *App) CallFrom(t *testing.T, address, token, method, target string, body any) *httptest.ResponseRecorder {
	t.Helper()
	if body == nil {
		return a.send(t, address, token, method, target, "", nil)
	}
	b, err := json.Marshal(body)
	require.NoError(t, err)
	return a.send(t, address, token, method, target, "application/json", bytes.NewReader(b))
}

// Send makes an API request with token (none when empty) and a body of
// contentType (none when body is nil), and checks the answer against the
// OpenAPI document.
func (a *App) Send(t *testing.T, token, method, target, contentType string, body io.Reader) *httptest.ResponseRecorder {
	t.Helper()
	return a.send(t, "", token, method, target, contentType, body)
}

// send is Send from address ("": httptest's).
func (a *App) send(t *testing.T, address, token, method, target, contentType string, body io.Reader) *httptest.ResponseRecorder {
	t.Helper()
	req := httptest.NewRequest(method, target, body)
	if address != "" {
		req.RemoteAddr = net.JoinHostPort(address, "40000")
	}
	if body != nil {
		req.Header.Set("Content-Type", contentType)
	}
	if token != "" {
		req.Header.Set("Authorization", "Bearer "+token)
	}
	rec := httptest.NewRecorder()
	a.Echo.ServeHTTP(rec, req)
	checkAPIResponse(t, req, rec)
	return rec
}

// CallServer sends a REST API request to the running server at base over
// HTTP, with token and a JSON body (none when nil), and returns the answer's
// status and body.
func CallServer(t *testing.T, base, token, method, path string, body any) (int, []byte) {
	t.Helper()
	var in io.Reader
	if body != nil {
		data, err := json.Marshal(body)
		require.NoError(t, err)
		in = bytes.NewReader(data)
	}
	req, err := http.NewRequest(method, base+api.Prefix+path, in)
	require.NoError(t, err)
	req.Header.Set("Authorization", "Bearer "+token)
	req.Header.Set("Content-Type", "application/json")
	resp, err := (&http.Client{Timeout: time.Minute}).Do(req)
	require.NoError(t, err)
	defer resp.Body.Close()
	data, err := io.ReadAll(resp.Body)
	require.NoError(t, err)
	return resp.StatusCode, data
}

// apiDocRouter finds a request's operation in the OpenAPI document, for
// checking the answers the tests get.
var apiDocRouter = sync.OnceValues(api.Router)

// checkAPIResponse fails the test when an answer of the API is not one the
// OpenAPI document describes: its status, media type and body, problems
// included. An answer for an address that is no operation must be a problem.
func checkAPIResponse(t *testing.T, req *http.Request, rec *httptest.ResponseRecorder) {
	t.Helper()
	if !strings.HasPrefix(req.URL.Path, api.Prefix+"/") || req.URL.Path == api.Prefix+"/openapi.json" {
		return
	}
	router, err := apiDocRouter()
	require.NoError(t, err)
	route, params, err := api.RouteOf(router, req)
	if err != nil {
		doc, err := oapi.GetSpec()
		require.NoError(t, err)
		require.Equal(t, "application/problem+json", rec.Header().Get("Content-Type"), "%s %s is no operation: its answer is a problem", req.Method, req.URL)
		var body any
		require.NoError(t, json.Unmarshal(rec.Body.Bytes(), &body))
		require.NoError(t, doc.Components.Schemas["Problem"].Value.VisitJSON(body), "%s %s answered a problem the document does not describe: %s", req.Method, req.URL, rec.Body)
		return
	}
	if media := rec.Header().Get("Content-Type"); media == JSONLines {
		checkJSONLines(t, req, route.Operation, rec)
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

// JSONLines is the media type of JSON lines: one JSON value per line.
const JSONLines = "application/jsonl"

// checkJSONLines fails the test when an answer in JSONLines is not one op
// describes: each line a value of its schema (kin-openapi reads no such body).
func checkJSONLines(t *testing.T, req *http.Request, op *openapi3.Operation, rec *httptest.ResponseRecorder) {
	t.Helper()
	resp := op.Responses.Status(rec.Code)
	require.NotNil(t, resp, "%s %s answered %d, which the OpenAPI document does not describe", req.Method, req.URL, rec.Code)
	media := resp.Value.Content.Get(JSONLines)
	require.NotNil(t, media, "%s %s answered %d in %s, which the OpenAPI document does not describe", req.Method, req.URL, rec.Code, JSONLines)
	for line := range strings.Lines(rec.Body.String()) {
		var v any
		require.NoError(t, json.Unmarshal([]byte(line), &v), "%s %s: a line that is not JSON: %s", req.Method, req.URL, line)
		require.NoError(t, media.Schema.Value.VisitJSON(v), "%s %s: a line the OpenAPI document does not describe: %s", req.Method, req.URL, line)
	}
}
