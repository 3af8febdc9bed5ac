package actions

import "context"

// Runtime runs one action run (docs/actions.md, "Runtimes"): the process
// runtime as a child process of the server, the pod runtime as a pod in the
// deployment's namespace. Both read the runner's lines into the same sink,
// one at a time, and report the same Outcome.
type Runtime interface {
	Run(ctx context.Context, spec Spec, sink func(Line)) (Outcome, error)
}

// The runtimes' names, as --action-runtime takes them.
const (
	RuntimeProcess = "process"
	RuntimePod     = "pod"
)

// Process is the process runtime: Run.
type Process struct{}

var _ Runtime = Process{}

// Run runs the action as a child process of the server (Run).
func (Process) Run(ctx context.Context, spec Spec, sink func(Line)) (Outcome, error) {
	return Run(ctx, spec, sink)
}
