package views

// The statuses and task kinds that pages show, named once: views depends on
// no domain package, so it keeps its own names for the executor's task and
// step statuses, deployment's statuses and its task kinds, which handlers
// pass through unchanged (handlers/web's TestViewsNameTheStatusesAndKindsTheyShow
// holds each to its owner's constant).
const (
	StatusQueued    = "queued"
	StatusRunning   = "running"
	StatusSucceeded = "succeeded"
	StatusFailed    = "failed"
	StatusWarning   = "warning"
	StatusCanceled  = "canceled"
	StatusPending   = "pending"
	StatusDeployed  = "deployed"
	StatusDeleting  = "deleting"
	StatusDeleted   = "deleted"
)

// Task kinds.
const (
	KindInstall  = "install"
	KindUpgrade  = "upgrade"
	KindRollback = "rollback"
	KindStop     = "stop"
	KindStart    = "start"
	KindDelete   = "delete"
	KindAction   = "action"
)

// BusyElsewhere is a deployment's Busy when a task that is not on the page
// holds it (its kind unknown there); the badge reads "busy: working…".
const BusyElsewhere = "working"
