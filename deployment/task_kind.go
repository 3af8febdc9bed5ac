package deployment

// The kinds of task: what a task does to its deployment. Each operation
// queues a task of one kind, and Runners has a runner for each.
const (
	KindInstall  = "install"
	KindUpgrade  = "upgrade"
	KindRollback = "rollback"
	KindStop     = "stop"
	KindStart    = "start"
	KindDelete   = "delete"
	// KindAction is the kind of a task that runs a manual action.
	KindAction = "action"
)

// TaskKinds lists every kind of task, in the order the pages and the REST
// API list them: the one list the others are held to (tests hold the
// tasks.kind CHECK constraint, the REST API's TaskKind enum and the pages'
// words for each kind to it).
func TaskKinds() []string {
	return []string{KindInstall, KindUpgrade, KindRollback, KindStop, KindStart, KindDelete, KindAction}
}
