package kube

import "time"

// actionJobRequests is what RunActionJob's requests to the cluster may take
// together, besides its waits: reading and writing the Job and its Secret,
// and reading the failed pod's output.
const actionJobRequests = time.Minute

// ActionJobMargin is how long RunActionJob may take beyond its Job's own
// time limit: waiting until the ended Job of an earlier call is gone, then
// for the cluster to end the Job (each jobEndGrace at most), and its requests.
// The caller's deadline is ActionJobCallLimit; the styrmin Python package's
// execute_commands waits longer than that for its answer (JOB_CALL_MARGIN,
// checked by a test).
const ActionJobMargin = 2*jobEndGrace + actionJobRequests

// ActionJobCallLimit is the deadline to give RunActionJob for a Job of this
// timeout. When it passes, the Job is told to stop (which takes up to
// ActionJobStopGrace more) and RunActionJob returns the context's error.
func ActionJobCallLimit(timeout time.Duration) time.Duration {
	return timeout + ActionJobMargin
}

// ActionJobStopGrace is how long RunActionJob may still take after its
// context ended: telling the Job to stop.
const ActionJobStopGrace = jobStopTimeout
