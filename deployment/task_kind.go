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
	// KindReconcile re-applies the release as it is (drift undone).
	KindReconcile = "reconcile"
	// KindAction is the kind of a task that runs a manual action.
	KindAction = "action"
)

// TaskKinds lists every kind of task, in the order the pages and the REST
// API list them: the one list the others are held to (tests hold the
// tasks.kind CHECK constraint, the REST API's TaskKind enum and the pages'
// words for each kind to it).
func TaskKinds() []string {
	return []string{KindInstall, KindUpgrade, KindRollback, KindStop, KindStart, KindDelete, KindAction, KindReconcile}
}

// taskInputsOf returns the empty inputs of a task of kind, of that kind's
// type (TaskInputs); nil for a kind outside TaskKinds.
func taskInputsOf(kind string) TaskInputs {
	switch kind {
	case KindInstall:
		return &InstallInputs{}
	case KindUpgrade:
		return &UpgradeInputs{}
	case KindRollback:
		return &RollbackInputs{}
	case KindStop, KindStart:
		return &ComponentsInputs{}
	case KindDelete:
		return &DeleteInputs{}
	case KindAction:
		return &ActionInputs{}
	case KindReconcile:
		return &ReconcileInputs{}
	}
	return nil
}
