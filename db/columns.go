package db

// The columns that hold a name from a fixed list (statuses, step kinds), as
// types. sqlc maps the columns to them (the column overrides in sqlc.yaml), so
// a row's status or kind cannot be compared or set by mistake with a bare
// string or a name of another list. They are defined here, in the package of
// the generated code, because the packages that name their values import db
// (an import the other way would be a cycle): the executor names the task and
// step statuses (executor.TaskQueued, ...; executor.TaskStatus,
// executor.StepStatus and executor.StepKind are aliases of these types),
// deployment names the deployment statuses (deployment.StatusPending, ...)
// and the step kinds of its runners (deployment.StepHelm, ...). The CHECK
// constraints of the migrations list the statuses too; the owners' tests hold
// the two lists together.

// TaskStatus is a task's status, as stored in tasks.status.
type TaskStatus string

// StepStatus is a step's status, as stored in steps.status.
type StepStatus string

// DeploymentStatus is a deployment's status, as stored in deployments.status.
type DeploymentStatus string

// StepKind says what a step does, as stored in steps.kind.
type StepKind string
