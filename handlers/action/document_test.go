package action_test

import (
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/styrmin/styrmin/api/actionstest"
	"github.com/styrmin/styrmin/handlers/handlerstest"
)

// TestThePrimitivesAnswersOfARealRunMatchTheActionsDocument calls the
// primitives of a deployment's run, through the service and its database,
// and checks each request and answer, errors included, against
// api/actions.yaml (api/actions_test.go holds the routes to it).
func TestThePrimitivesAnswersOfARealRunMatchTheActionsDocument(t *testing.T) {
	t.Parallel()
	d := handlerstest.SetupDeployments(t)
	install := d.Install(t, handlerstest.PgInstall("doc-db"))
	token := d.ActionToken(t, "doc-db", install.TaskID)
	call := func(token, method, path, body string) *httptest.ResponseRecorder {
		t.Helper()
		target := "/api/action/v1/" + path
		req := httptest.NewRequest(method, target, strings.NewReader(body))
		req.Header.Set("Content-Type", "application/json")
		if token != "" {
			req.Header.Set("Authorization", "Bearer "+token)
		}
		rec := httptest.NewRecorder()
		d.Echo.ServeHTTP(rec, req)
		actionstest.Check(t, method, target, body, rec)
		return rec
	}

	require.Equal(t, http.StatusOK, call(token, "GET", "deployment", "").Code)
	stop := call(token, "POST", "tasks/stop", `{"components": ["primary"]}`)
	require.Equal(t, http.StatusAccepted, stop.Code, stop.Body.String())
	var accepted struct {
		TaskID int64 `json:"task_id"`
	}
	require.NoError(t, json.Unmarshal(stop.Body.Bytes(), &accepted))
	require.Equal(t, http.StatusOK, call(token, "GET", fmt.Sprintf("tasks/%d", accepted.TaskID), "").Code)
	require.Equal(t, http.StatusNotFound, call(token, "GET", "tasks/999999", "").Code)
	require.Equal(t, http.StatusBadRequest, call(token, "POST", "tasks/start", `{"components": ["replica"]}`).Code)
	require.Equal(t, http.StatusBadRequest, call(token, "POST", "tasks/upgrade", `{"version": "16.6.0", "prompts": {"backup": {"label": "Before 16.6"}}}`).Code)
	require.Equal(t, http.StatusAccepted, call(token, "POST", "tasks/upgrade", `{"version": "16.6.0"}`).Code)
	// This server has no cluster: the Job cannot run.
	require.Equal(t, http.StatusServiceUnavailable, call(token, "POST", "jobs", `{"commands": ["true"], "image": "busybox", "timeout": 60}`).Code)
	require.Equal(t, http.StatusUnauthorized, call("", "GET", "deployment", "").Code)
	require.Equal(t, http.StatusUnauthorized, call("sta_unknown", "GET", "deployment", "").Code)
}
