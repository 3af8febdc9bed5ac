package kube

// The label that marks the Jobs (and their pod templates) that run driver
// actions: ActionJobLabel=ActionJobLabelValue. The local cluster's action runner
// (localkube/actionrunner, a separate module) runs exactly the pods carrying it;
// a test checks that its copy is the same.
const (
	// ActionJobLabel is the label's key.
	ActionJobLabel = "styrmin.io/action-job"
	// ActionJobLabelValue is the label's value.
	ActionJobLabelValue = "true"
)
