package deployment

import (
	"encoding/json"

	"github.com/styrmin/styrmin/kube"
)

// The details of the steps of each kind, as stored in steps.detail: their
// runners record them with executor.Step.SetDetail, and pages and the API
// read them back through the same types. The API shows the JSON keys, so
// they never change.

// HookDetail is the detail of a StepHook: which action ran and how it ended.
// The hook runner records Action, Mode, Error and Result when the step ends;
// while the action runs, its execute_commands calls record a failed Job
// (JobDetail) and the ended Jobs they deleted (DeletedJobs, appended by
// the AddStepDeletedJob query).
type HookDetail struct {
	Action string `json:"action"`
	// Mode is the action's drivers.Mode.
	Mode string `json:"mode"`
	// Error is why the action failed, "" when it did not.
	Error string `json:"error,omitempty"`
	// Result is the result the action returned (redacted), if any.
	Result json.RawMessage `json:"result,omitempty"`
	// JobDetail is the last Job of the action that failed, or that it
	// stopped waiting for; nil when none did.
	*JobDetail
	// DeletedJobs are the ended Jobs that the action's Jobs replaced, in order.
	DeletedJobs []string `json:"deleted_jobs,omitempty"`
}

// JobDetail is a Job of an action that failed, or that the action stopped
// waiting for: its output so far and how it ended.
type JobDetail struct {
	Job string `json:"job"`
	// JobTail is the last lines of the Job's output, redacted.
	JobTail string `json:"job_tail"`
	// JobTailLines is how many lines JobTail holds.
	JobTailLines int `json:"job_tail_lines"`
	// JobMessage says how the Job ended, redacted.
	JobMessage string `json:"job_message"`
}

// WaitDetail is the detail of a StepWait for components to be ready (the
// wait for stopped pods records none).
type WaitDetail struct {
	Ready    int32 `json:"ready"`
	Replicas int32 `json:"replicas"`
}

// HelmDetail is the detail of a StepHelm that made a revision.
type HelmDetail struct {
	Revision int `json:"revision"`
}

// ComponentDetail is the detail of a StepComponent: the component's
// workloads after it was stopped or started.
type ComponentDetail struct {
	Workloads []kube.Workload `json:"workloads"`
}
