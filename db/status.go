package db

// The statuses the schema stores, as types. sqlc maps the columns to them
// (the column overrides in sqlc.yaml), so a row's status cannot be compared
// or set by mistake with a bare string of another kind. They are defined here,
// in the package that the generated code lives in, because the packages that
// name their values import db (an import the other way would be a cycle): the
// executor names the task and step statuses (executor.TaskQueued, ...;
// executor.TaskStatus and executor.StepStatus are aliases of these types) and
// deployment names the deployment statuses (deployment.StatusPending, ...).
// The CHECK constraints of the migrations list the same values; the owners'
// tests hold the two lists together.

// TaskStatus is a task's status, as stored in tasks.status.
type TaskStatus string

// StepStatus is a step's status, as stored in steps.status.
type StepStatus string

// DeploymentStatus is a deployment's status, as stored in deployments.status.
type DeploymentStatus string
