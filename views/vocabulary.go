package views

// The statuses and task kinds that pages show, named once: views depends on
// no domain package, so it keeps its own names for the executor's task and
// step statuses, deployment's statuses and its task kinds (taskKinds), which handlers
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

// BusyElsewhere is a deployment's Busy when a task that is not on the page
// holds it (its kind unknown there); the badge reads "busy: working…".
const BusyElsewhere = "working"

// taskKindWords is how the pages name a kind of task: its title, and what a
// deployment is busy with while such a task runs.
type taskKindWords struct {
	kind, title, busy string
}

// taskKinds are the pages' words for each task kind, in the order the tasks
// page's filter offers them: deployment.TaskKinds, which handlers/web's
// TestViewsNameTheStatusesAndKindsTheyShow holds them to.
var taskKinds = []taskKindWords{
	{"install", "Install", "installing…"},
	{"upgrade", "Upgrade", "upgrading…"},
	{"rollback", "Roll back", "rolling back…"},
	{"stop", "Stop components", "stopping…"},
	{"start", "Start components", "starting…"},
	{"delete", "Delete", "deleting…"},
	{"action", "Action", "running an action…"},
	{"reconcile", "Reconcile", "reconciling…"},
}

// TaskStatuses and TaskKinds are the choices of the tasks page's filters.
var (
	TaskStatuses = []string{StatusQueued, StatusRunning, StatusSucceeded, StatusFailed, StatusCanceled}
	TaskKinds    = kindNames()
)

// kindNames lists taskKinds' kinds.
func kindNames() []string {
	names := make([]string, len(taskKinds))
	for i, k := range taskKinds {
		names[i] = k.kind
	}
	return names
}

// wordsOf returns the words of kind; ok is false for a kind the pages do
// not know.
func wordsOf(kind string) (words taskKindWords, ok bool) {
	for _, k := range taskKinds {
		if k.kind == kind {
			return k, true
		}
	}
	return taskKindWords{}, false
}
