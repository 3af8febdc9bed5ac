package handlerstest

import (
	"context"
	"crypto/sha256"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	"github.com/styrmin/styrmin/db"
	"github.com/styrmin/styrmin/handlers/action"
)

// ActionToken mints an action token for a hook step of task, as the
// executor does for a run.
func (d DeployApp) ActionToken(t *testing.T, name string, task int64) string {
	t.Helper()
	ctx := context.Background()
	dep, err := d.Service.Get(ctx, name)
	require.NoError(t, err)
	q := db.New(d.Pool)
	step, err := q.InsertStep(ctx, db.InsertStepParams{TaskID: task, Kind: "hook", Title: "an action"})
	require.NoError(t, err)
	token := "sta_test-token-of-step-" + name
	sum := sha256.Sum256([]byte(token))
	require.NoError(t, q.InsertActionToken(ctx, db.InsertActionTokenParams{
		TokenHash: sum[:], DeploymentID: dep.ID, TaskID: task, StepID: step.ID, ExpiresAt: time.Now().Add(time.Hour),
	}))
	return token
}

// Primitive calls an action primitive with token and a JSON body.
func (d DeployApp) Primitive(t *testing.T, token, path, body string) (int, map[string]any) {
	t.Helper()
	req := httptest.NewRequest(http.MethodPost, action.Prefix+path, strings.NewReader(body))
	req.Header.Set("Authorization", "Bearer "+token)
	req.Header.Set("Content-Type", "application/json")
	rec := httptest.NewRecorder()
	d.Echo.ServeHTTP(rec, req)
	var answer map[string]any
	require.NoError(t, json.Unmarshal(rec.Body.Bytes(), &answer), rec.Body.String())
	return rec.Code, answer
}
