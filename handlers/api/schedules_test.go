package api_test

import (
	"encoding/json"
	"maps"
	"net/http"
	"slices"
	"strconv"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/styrmin/styrmin/api"
	"github.com/styrmin/styrmin/handlers/handlerstest"
)

func TestAPISchedulesAreMadeByOperatorsAndReadByEveryone(t *testing.T) {
	t.Parallel()
	d := setupAPIDeployments(t)
	d.Install(t, handlerstest.HelloInstall("site"))
	base := "/api/v1/deployments/site/schedules"

	p := refused(t, d.Call(t, d.operatorToken, http.MethodPost, base, map[string]any{"action": "fetch_page", "cron": "@every 1m",
		"time_zone": "Nowhere/Else", "prompts": map[string]any{"path": "no-slash"}}), http.StatusBadRequest)
	require.Equal(t, []string{"cron", "prompt.fetch_page.path", "time_zone"}, slices.Sorted(maps.Keys(fieldsOf(p))))
	p = refused(t, d.Call(t, d.operatorToken, http.MethodPost, base, map[string]any{"action": "smoke_test", "cron": "0 3 * * *", "time_zone": "UTC"}), http.StatusBadRequest)
	require.Contains(t, fieldsOf(p)["action"], "no manual action")
	refused(t, d.Call(t, d.readerToken, http.MethodPost, base, map[string]any{"action": "fetch_page", "cron": "0 3 * * *", "time_zone": "UTC"}), http.StatusForbidden)

	rec := d.Call(t, d.operatorToken, http.MethodPost, base, map[string]any{"action": "fetch_page", "cron": "0 3 * * *", "time_zone": "UTC",
		"overlap": "queue", "prompts": map[string]any{"path": "/health"}})
	require.Equal(t, http.StatusCreated, rec.Code, rec.Body.String())
	var made api.Schedule
	require.NoError(t, json.Unmarshal(rec.Body.Bytes(), &made))
	require.Equal(t, api.ScheduleOverlap("queue"), made.Overlap)
	require.Equal(t, api.ScheduleMissed("once"), made.Missed, "the default")
	require.Equal(t, map[string]any{"path": "/health"}, made.Prompts)
	require.Len(t, made.NextRuns, 3)
	require.Equal(t, 3, made.NextRuns[0].UTC().Hour())
	require.Equal(t, "otto", made.Author)

	one := base + "/" + strconv.FormatInt(made.Id, 10)
	refused(t, d.Call(t, d.readerToken, http.MethodPost, one+"/pause", nil), http.StatusForbidden)
	refused(t, d.Call(t, d.readerToken, http.MethodDelete, one, nil), http.StatusForbidden)
	require.Equal(t, http.StatusNoContent, d.Call(t, d.operatorToken, http.MethodPost, one+"/pause", nil).Code)

	rec = d.Call(t, d.readerToken, http.MethodGet, base, nil)
	require.Equal(t, http.StatusOK, rec.Code, rec.Body.String())
	var list []api.Schedule
	require.NoError(t, json.Unmarshal(rec.Body.Bytes(), &list))
	require.Len(t, list, 1)
	require.True(t, list[0].Paused)
	require.Empty(t, list[0].NextRuns)

	require.Equal(t, http.StatusNoContent, d.Call(t, d.operatorToken, http.MethodPost, one+"/resume", nil).Code)
	require.Equal(t, http.StatusNoContent, d.Call(t, d.operatorToken, http.MethodDelete, one, nil).Code)
	refused(t, d.Call(t, d.operatorToken, http.MethodDelete, one, nil), http.StatusNotFound)
	refused(t, d.Call(t, d.readerToken, http.MethodGet, "/api/v1/deployments/nope/schedules", nil), http.StatusNotFound)
}

func TestAPIScheduleKeepsTheLastBackupsOfAnActionWithArtefactsOnly(t *testing.T) {
	t.Parallel()
	d := setupAPIDeployments(t)
	d.Install(t, handlerstest.PgInstall("orders"))
	base := "/api/v1/deployments/orders/schedules"

	p := refused(t, d.Call(t, d.operatorToken, http.MethodPost, base, map[string]any{"action": "vacuum", "cron": "0 3 * * *", "time_zone": "UTC", "keep_last": 7}), http.StatusBadRequest)
	require.Equal(t, []string{"keep_last"}, slices.Sorted(maps.Keys(fieldsOf(p))))
	require.Contains(t, fieldsOf(p)["keep_last"], "action vacuum declares no artefacts to prune")

	rec := d.Call(t, d.operatorToken, http.MethodPost, base, map[string]any{"action": "take_backup", "cron": "0 3 * * *", "time_zone": "UTC",
		"keep_last": 7, "prompts": map[string]any{"label": "nightly"}})
	require.Equal(t, http.StatusCreated, rec.Code, rec.Body.String())
	var made api.Schedule
	require.NoError(t, json.Unmarshal(rec.Body.Bytes(), &made))
	require.Equal(t, 7, *made.KeepLast)
	require.Nil(t, made.KeepDays, "no rule by days")
	require.Equal(t, "prune_backups", *made.PruneAction)
	require.Nil(t, made.LastPruneTask, "no run yet")
}

func TestAPIScheduleIsEditedByOperatorsWithCreationsFieldErrors(t *testing.T) {
	t.Parallel()
	d := setupAPIDeployments(t)
	d.Install(t, handlerstest.PgInstall("orders"))
	base := "/api/v1/deployments/orders/schedules"
	rec := d.Call(t, d.operatorToken, http.MethodPost, base, map[string]any{"action": "take_backup", "cron": "0 3 * * *", "time_zone": "UTC",
		"keep_last": 7, "prompts": map[string]any{"label": "nightly"}})
	require.Equal(t, http.StatusCreated, rec.Code, rec.Body.String())
	var made api.Schedule
	require.NoError(t, json.Unmarshal(rec.Body.Bytes(), &made))
	one := base + "/" + strconv.FormatInt(made.Id, 10)

	refused(t, d.Call(t, d.readerToken, http.MethodPatch, one, map[string]any{"cron": "* * * * *", "keep_last": 1}), http.StatusForbidden)
	p := refused(t, d.Call(t, d.operatorToken, http.MethodPatch, one, map[string]any{"cron": "0 25 * * *", "time_zone": "Nowhere/Else"}), http.StatusBadRequest)
	require.Equal(t, []string{"cron", "time_zone"}, slices.Sorted(maps.Keys(fieldsOf(p))), "the same field errors as a creation")

	rec = d.Call(t, d.operatorToken, http.MethodPatch, one, map[string]any{"cron": "30 1 * * *", "missed": "skip", "keep_last": 2, "keep_days": 10})
	require.Equal(t, http.StatusOK, rec.Code, rec.Body.String())
	var edited api.Schedule
	require.NoError(t, json.Unmarshal(rec.Body.Bytes(), &edited))
	require.Equal(t, "30 1 * * *", edited.Cron)
	require.Equal(t, api.ScheduleMissed("skip"), edited.Missed)
	require.Equal(t, api.ScheduleOverlap("skip"), edited.Overlap, "left out: stays")
	require.Equal(t, 2, *edited.KeepLast)
	require.Equal(t, 10, *edited.KeepDays)
	require.Equal(t, made.Prompts, edited.Prompts, "the prompt values stay")

	rec = d.Call(t, d.readerToken, http.MethodGet, base, nil)
	var list []api.Schedule
	require.NoError(t, json.Unmarshal(rec.Body.Bytes(), &list))
	require.Equal(t, "30 1 * * *", list[0].Cron, "the read-only user's PATCH changed nothing; the operator's did")

	vacuum := d.Call(t, d.operatorToken, http.MethodPost, base, map[string]any{"action": "vacuum", "cron": "0 3 * * *", "time_zone": "UTC"})
	require.Equal(t, http.StatusCreated, vacuum.Code, vacuum.Body.String())
	var v api.Schedule
	require.NoError(t, json.Unmarshal(vacuum.Body.Bytes(), &v))
	p = refused(t, d.Call(t, d.operatorToken, http.MethodPatch, base+"/"+strconv.FormatInt(v.Id, 10), map[string]any{"keep_days": 7}), http.StatusBadRequest)
	require.Contains(t, fieldsOf(p)["keep_days"], "action vacuum declares no artefacts to prune")
	refused(t, d.Call(t, d.operatorToken, http.MethodPatch, base+"/999999", map[string]any{"cron": "@daily"}), http.StatusNotFound)
}
