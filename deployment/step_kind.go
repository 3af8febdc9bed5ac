package deployment

import "github.com/styrmin/styrmin/executor"

// Step kinds: what each step of a task does (executor.Run.Step). Crash
// recovery depends on StepHelm (helmStepStarted), and pages and the API
// read a StepHook's detail as a HookDetail.
const (
	// StepRender renders the values of the driver's chart.
	StepRender executor.StepKind = "render"
	// StepNamespace creates or deletes the deployment's namespace.
	StepNamespace executor.StepKind = "namespace"
	// StepHelm installs, upgrades, rolls back or uninstalls the Helm release.
	StepHelm executor.StepKind = "helm"
	// StepWait waits for components to be ready, or their pods to end.
	StepWait executor.StepKind = "wait"
	// StepHook runs one driver action.
	StepHook executor.StepKind = "hook"
	// StepComponent stops or starts one component.
	StepComponent executor.StepKind = "component"
	// StepJob deletes the Job of the driver's actions.
	StepJob executor.StepKind = "job"
)
