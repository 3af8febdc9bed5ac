// Package actionstest holds tests to the action primitives' OpenAPI document
// (api/actions.yaml): it checks the requests a test sends and the answers it
// gets, wherever the primitives' handlers live.
package actionstest

import (
	"net/http/httptest"
	"strings"
	"sync"
	"testing"

	"github.com/getkin/kin-openapi/openapi3filter"
	"github.com/getkin/kin-openapi/routers"
	"github.com/getkin/kin-openapi/routers/legacy"
	"github.com/stretchr/testify/require"

	"github.com/styrmin/styrmin/api"
)

// router finds a request's operation in api/actions.yaml.
var router = sync.OnceValues(func() (routers.Router, error) {
	doc, err := api.ActionsDocument()
	if err != nil {
		return nil, err
	}
	return legacy.NewRouter(doc)
})

// Check fails t when the request (method, target, body) is not one
// api/actions.yaml allows, or when rec, its answer, is not one the document
// describes for its operation: status, media type and body, errors included.
func Check(t testing.TB, method, target, body string, rec *httptest.ResponseRecorder) {
	t.Helper()
	check(t, method, target, body, true, rec)
}

// CheckAnswer is Check for a request the document does not allow (an
// unknown field, a task id that is not a number): only the answer is checked.
func CheckAnswer(t testing.TB, method, target, body string, rec *httptest.ResponseRecorder) {
	t.Helper()
	check(t, method, target, body, false, rec)
}

func check(t testing.TB, method, target, body string, request bool, rec *httptest.ResponseRecorder) {
	t.Helper()
	r, err := router()
	require.NoError(t, err)
	req := httptest.NewRequest(method, target, strings.NewReader(body))
	req.Header.Set("Authorization", "Bearer sta_check")
	if body != "" {
		req.Header.Set("Content-Type", "application/json")
	}
	route, params, err := r.FindRoute(req)
	require.NoError(t, err, "%s %s is an operation of api/actions.yaml", method, target)
	in := &openapi3filter.RequestValidationInput{Request: req, PathParams: params, Route: route,
		Options: &openapi3filter.Options{AuthenticationFunc: openapi3filter.NoopAuthenticationFunc, IncludeResponseStatus: true}}
	if request {
		require.NoError(t, openapi3filter.ValidateRequest(req.Context(), in), "%s %s: the request is one api/actions.yaml allows", method, target)
	}
	out := &openapi3filter.ResponseValidationInput{RequestValidationInput: in, Status: rec.Code, Header: rec.Header(), Options: in.Options}
	out.SetBodyBytes(rec.Body.Bytes())
	require.NoError(t, openapi3filter.ValidateResponse(req.Context(), out), "%s %s answered %d, which api/actions.yaml does not describe: %s", method, target, rec.Code, rec.Body)
}
