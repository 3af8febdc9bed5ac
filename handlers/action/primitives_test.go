package handlers

import (
	"context"
	"crypto/sha256"
	"encoding/json"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/styrmin/styrmin/db"
	"github.com/styrmin/styrmin/deployment"
	"github.com/styrmin/styrmin/kube"
)

// actionToken mints an action token for a hook step of task, as the
// executor does for a run.
func (d deployApp) actionToken(t *testing.T, name string, task int64) string {
	t.Helper()
	ctx := context.Background()
	dep, err := d.svc.Get(ctx, name)
	require.NoError(t, err)
	q := db.New(d.pool)
	step, err := q.InsertStep(ctx, db.InsertStepParams{TaskID: task, Kind: "hook", Title: "an action"})
	require.NoError(t, err)
	token := "sta_test-token-of-step-" + name
	sum := sha256.Sum256([]byte(token))
	require.NoError(t, q.InsertActionToken(ctx, db.InsertActionTokenParams{
		TokenHash: sum[:], DeploymentID: dep.ID, TaskID: task, StepID: step.ID, ExpiresAt: time.Now().Add(time.Hour),
	}))
	return token
}

// primitive calls an action primitive with token and a JSON body.
func (d deployApp) primitive(t *testing.T, token, path, body string) (int, map[string]any) {
	t.Helper()
	req := httptest.NewRequest(http.MethodPost, actionAPIPrefix+path, strings.NewReader(body))
	req.Header.Set("Authorization", "Bearer "+token)
	req.Header.Set("Content-Type", "application/json")
	rec := httptest.NewRecorder()
	d.e.ServeHTTP(rec, req)
	var answer map[string]any
	require.NoError(t, json.Unmarshal(rec.Body.Bytes(), &answer), rec.Body.String())
	return rec.Code, answer
}

func TestAnActionsUpgradeGivesItsHookActionsTheirPrompts(t *testing.T) {
	t.Parallel()
	d := setupDeployments(t)
	install := d.install(t, pgInstall("shop-db"))
	token := d.actionToken(t, "shop-db", install.TaskID)

	status, answer := d.primitive(t, token, "tasks/upgrade", `{"version": "16.6.0", "prompts": {"backup": {"label": "Before 16.6"}}}`)
	require.Equal(t, http.StatusBadRequest, status)
	require.Contains(t, answer["error"], "prompt.backup.label", "the refusal names the field, for the action's log")

	status, answer = d.primitive(t, token, "tasks/upgrade", `{"version": "16.6.0", "prompts": {"backup": {"label": "before-16-6"}}}`)
	require.Equal(t, http.StatusAccepted, status, "%v", answer)
	task, err := d.svc.TaskByID(context.Background(), int64(answer["task_id"].(float64)))
	require.NoError(t, err)
	require.Equal(t, map[string]any{"backup": map[string]any{"label": "before-16-6", "database": "app"}}, task.Inputs["prompts"],
		"the given prompt and the other's default")
}

// deadlinePrimitives answers POST jobs at once, noting the deadline RunJob was given.
type deadlinePrimitives struct {
	ActionPrimitives
	deadline time.Time
}

func (p *deadlinePrimitives) Authenticate(ctx context.Context, token string) (*deployment.Caller, error) {
	return &deployment.Caller{}, nil
}

func (p *deadlinePrimitives) RunJob(ctx context.Context, c *deployment.Caller, req deployment.JobRequest) (*deployment.JobResult, error) {
	p.deadline, _ = ctx.Deadline()
	return &deployment.JobResult{Job: "site-job", Succeeded: true}, nil
}

func TestAJobsCallIsBoundedByItsTimeoutAndTheServersWaits(t *testing.T) {
	t.Parallel()
	p := &deadlinePrimitives{}
	e := New(Deps{Logger: slog.Default(), Primitives: p})
	req := httptest.NewRequest(http.MethodPost, actionAPIPrefix+"jobs", strings.NewReader(`{"commands": ["true"], "image": "busybox", "timeout": 600}`))
	req.Header.Set("Authorization", "Bearer sta_test")
	req.Header.Set("Content-Type", "application/json")
	rec := httptest.NewRecorder()
	before := time.Now()
	e.ServeHTTP(rec, req)
	after := time.Now()
	require.Equal(t, http.StatusOK, rec.Code, rec.Body.String())
	limit := kube.ActionJobCallLimit(600 * time.Second)
	require.False(t, p.deadline.Before(before.Add(limit)), "RunJob may wait for everything the Job's waits take")
	require.False(t, p.deadline.After(after.Add(limit)), "and no longer")
	require.Less(t, limit, JobCallLimit(600*time.Second), "the answer has time to be written")
}
