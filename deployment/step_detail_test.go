package deployment_test

import (
	"encoding/json"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/styrmin/styrmin/deployment"
)

// TestStepDetailsKeepTheirStoredKeys: the typed step details are stored
// under the keys that existing rows and the API's document have; a hook
// step's runner writes no Job keys over those its primitives merged.
func TestStepDetailsKeepTheirStoredKeys(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		detail any
		stored string
	}{
		{deployment.HookDetail{Action: "migrate", Mode: "blocking"}, `{"action": "migrate", "mode": "blocking"}`},
		{deployment.HookDetail{Action: "migrate", Mode: "best-effort", Error: "Action migrate failed: boom", Result: json.RawMessage(`{"rows": 3}`)},
			`{"action": "migrate", "mode": "best-effort", "error": "Action migrate failed: boom", "result": {"rows": 3}}`},
		{deployment.JobDetail{Job: "site-job-1", JobTail: "", JobTailLines: 0, JobMessage: "exit code 2"},
			`{"job": "site-job-1", "job_tail": "", "job_tail_lines": 0, "job_message": "exit code 2"}`},
		{deployment.WaitDetail{Ready: 0, Replicas: 0}, `{"ready": 0, "replicas": 0}`},
		{deployment.HelmDetail{Revision: 3}, `{"revision": 3}`},
		{deployment.ComponentDetail{}, `{"workloads": null}`},
	} {
		got, err := json.Marshal(tc.detail)
		require.NoError(t, err)
		require.JSONEq(t, tc.stored, string(got), "%T", tc.detail)
	}
}

// TestHookDetailReadsWhatTheRunnerAndThePrimitivesStored: a hook step's
// detail, as its runner, execute_commands and the deleted-Job query store
// it, reads back whole.
func TestHookDetailReadsWhatTheRunnerAndThePrimitivesStored(t *testing.T) {
	t.Parallel()
	stored := `{"action": "migrate", "mode": "blocking", "error": "Action migrate failed: exit 1", "job": "site-job-2",
		"job_tail": "line 1\nline 2", "job_tail_lines": 2, "job_message": "exit code 1", "deleted_jobs": ["site-job-0", "site-job-1"]}`
	var h deployment.HookDetail
	require.NoError(t, json.Unmarshal([]byte(stored), &h))
	require.Equal(t, deployment.HookDetail{Action: "migrate", Mode: "blocking", Error: "Action migrate failed: exit 1",
		JobDetail:   &deployment.JobDetail{Job: "site-job-2", JobTail: "line 1\nline 2", JobTailLines: 2, JobMessage: "exit code 1"},
		DeletedJobs: []string{"site-job-0", "site-job-1"}}, h)
	again, err := json.Marshal(h)
	require.NoError(t, err)
	require.JSONEq(t, stored, string(again))
}
