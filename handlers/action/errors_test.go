package action_test

import (
	"bytes"
	"context"
	"encoding/json"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/styrmin/styrmin/deployment"
	"github.com/styrmin/styrmin/handlers"
	"github.com/styrmin/styrmin/handlers/action"
	"github.com/styrmin/styrmin/handlers/handlerstest"
)

// actionError is the action API's error answer: {"error": message}, as
// JSON, never an HTML page.
func actionError(t *testing.T, rec *httptest.ResponseRecorder) map[string]string {
	t.Helper()
	require.Equal(t, "application/json", rec.Header().Get("Content-Type"), "the action API answers JSON: %s", rec.Body)
	var answer map[string]string
	require.NoError(t, json.Unmarshal(rec.Body.Bytes(), &answer), rec.Body.String())
	return answer
}

func TestAnUnknownActionPathAnswersTheActionAPIsJSONError(t *testing.T) {
	t.Parallel()
	a := handlerstest.Setup(t)
	rec := a.Request(handlerstest.Visitor{}, http.MethodGet, action.Prefix+"no/such/call", nil, "Authorization", "Bearer sta_test")
	require.Equal(t, http.StatusNotFound, rec.Code)
	require.NotEmpty(t, actionError(t, rec)["error"])
}

// panickingPrimitives lets any token in and panics when the deployment is read.
type panickingPrimitives struct{ action.Primitives }

func (panickingPrimitives) Authenticate(context.Context, string) (*deployment.Caller, error) {
	return &deployment.Caller{}, nil
}

func (panickingPrimitives) ReadDeployment(context.Context, *deployment.Caller) (*deployment.ActionDeployment, error) {
	panic("secret-bearing detail")
}

func TestAPanickingPrimitiveAnswersAJSON500WithoutItsDetails(t *testing.T) {
	t.Parallel()
	var log bytes.Buffer
	e := handlers.New(handlers.Deps{Logger: slog.New(slog.NewTextHandler(&log, nil)), Primitives: panickingPrimitives{}})
	req := httptest.NewRequest(http.MethodGet, action.Prefix+"deployment", nil)
	req.Header.Set("Authorization", "Bearer sta_test")
	rec := httptest.NewRecorder()
	e.ServeHTTP(rec, req)

	require.Equal(t, http.StatusInternalServerError, rec.Code)
	require.Equal(t, map[string]string{"error": "Something went wrong on the server. The details are in the server log."}, actionError(t, rec))
	require.Contains(t, log.String(), "secret-bearing detail", "the details are in the server's log")
}
