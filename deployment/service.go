// Package deployment is every decision about deployments: what may be
// installed, what may change in an upgrade, defaults and limits. The pages,
// the REST API and the action primitives build an Operation (Install,
// Upgrade, ...) and give it to Service.Queue (a user's upgrade goes through
// Service.Review first), which validates and plans it, writes the task and
// queues it in one transaction; package runner does the tasks on the cluster.
package deployment

import (
	"context"
	"encoding/json"
	"fmt"
	"log/slog"
	"regexp"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/styrmin/styrmin/catalog"
	"github.com/styrmin/styrmin/db"
	"github.com/styrmin/styrmin/drivers"
	"github.com/styrmin/styrmin/health"
	"github.com/styrmin/styrmin/secrets"
)

// Catalog is what the service reads of the driver catalogue.
type Catalog interface {
	Versions(ctx context.Context, name string) ([]string, error)
	// Spec is a version's decoded spec, decoded once per content digest.
	Spec(ctx context.Context, name, version string) (catalog.Spec, error)
	Bundle(ctx context.Context, name, version string) (*drivers.Bundle, error)
	// Permissions is what a version's chart needs and what an admin approved.
	Permissions(ctx context.Context, name, version string) (*catalog.Permissions, error)
	// Listing is every driver with its versions, kept between reads.
	Listing(ctx context.Context) (catalog.Listing, error)
}

// Queue commits tasks with their jobs (the executor implements it).
type Queue interface {
	Enqueue(ctx context.Context, tx pgx.Tx, taskID int64) error
	CancelQueued(ctx context.Context, taskID int64, message string) error
	RequestCancel(ctx context.Context, taskID int64, by string) error
}

// Service decides and queues every change of a deployment, and reads them back.
type Service struct {
	pool    *pgxpool.Pool
	q       *db.Queries
	catalog Catalog
	queue   Queue
	box     *secrets.Box
	cluster *Cluster
	log     *slog.Logger
	// observer hears of the Jobs actions run; never nil.
	observer JobObserver
	// healths is the newest health of each deployment.
	healths book[*Health]
	// words is each deployment's last known health word in this process.
	words knownWords
	// healthObserver hears of deployments that turn Degraded; never nil.
	healthObserver HealthObserver
	// healthEvents hears of every turn of a deployment's health; never nil.
	healthEvents HealthEvents
	// drifts is the newest drift of each deployment.
	drifts book[*Drift]
}

// HealthObserver hears of deployments that turn Degraded (metrics.Metrics).
type HealthObserver interface {
	// TurnedDegraded is called once per turn of a deployment to Degraded
	// from another known word, in the one process (of all that read it)
	// that recorded the turn.
	TurnedDegraded(deployment string)
}

// HealthEvents hears of the turns of deployments' health, in the
// transaction that records each turn, once across processes
// (webhooks.DeploymentEvents).
type HealthEvents interface {
	// HealthTurned is called with each turn, inside the transaction that records it.
	HealthTurned(ctx context.Context, tx pgx.Tx, turned health.Turned) error
}

// noHealthEvents hears nothing.
type noHealthEvents struct{}

func (noHealthEvents) HealthTurned(context.Context, pgx.Tx, health.Turned) error { return nil }

// noHealthObserver hears nothing.
type noHealthObserver struct{}

func (noHealthObserver) TurnedDegraded(string) {}

// JobObserver hears of the Kubernetes Jobs driver actions run (metrics.Metrics).
type JobObserver interface {
	// JobRan is called when an action's Kubernetes Job ends.
	JobRan(succeeded bool)
}

// noJobObserver hears nothing.
type noJobObserver struct{}

func (noJobObserver) JobRan(bool) {}

// Config is what a Service is built on.
type Config struct {
	Pool    *pgxpool.Pool
	Catalog Catalog
	// Queue commits the service's tasks; the process that works them builds
	// its worker on the same executor.
	Queue Queue
	// Box seals secret parameter values.
	Box *secrets.Box
	// Cluster is nil when no cluster is configured: pages then say so, and
	// tasks fail with that message.
	Cluster *Cluster
	// Logger receives the service's log lines (default slog.Default()).
	Logger *slog.Logger
	// Observer hears of the Jobs actions run; nil hears nothing.
	Observer JobObserver
	// HealthObserver hears of deployments that turn Degraded; nil hears nothing.
	HealthObserver HealthObserver
	// HealthEvents hears of every turn of a deployment's health; nil hears nothing.
	HealthEvents HealthEvents
}

// New returns the service of cfg.
func New(cfg Config) *Service {
	log := cfg.Logger
	if log == nil {
		log = slog.Default()
	}
	var observer JobObserver = noJobObserver{}
	if cfg.Observer != nil {
		observer = cfg.Observer
	}
	var healthObserver HealthObserver = noHealthObserver{}
	if cfg.HealthObserver != nil {
		healthObserver = cfg.HealthObserver
	}
	var healthEvents HealthEvents = noHealthEvents{}
	if cfg.HealthEvents != nil {
		healthEvents = cfg.HealthEvents
	}
	return &Service{pool: cfg.Pool, q: db.New(cfg.Pool), catalog: cfg.Catalog, queue: cfg.Queue, box: cfg.Box,
		cluster: cfg.Cluster, log: log, observer: observer, healthObserver: healthObserver, healthEvents: healthEvents}
}

// MaxNameLength is the longest deployment name: the name is the Helm release
// name, and "<name>-job" must stay a valid 53-character Job name for actions.
const MaxNameLength = 49

// namePattern is a DNS label, as Kubernetes requires of release and namespace names.
var namePattern = regexp.MustCompile(`^[a-z]([a-z0-9-]*[a-z0-9])?$`)

// checkName checks a deployment or namespace name; what names the field in the message.
func checkName(what, name string, maxLen int) error {
	switch {
	case name == "":
		return fmt.Errorf("give the %s", what)
	case len(name) > maxLen:
		return fmt.Errorf("the %s has %d characters; at most %d are allowed", what, len(name), maxLen)
	case !namePattern.MatchString(name):
		return fmt.Errorf("the %s must be lower-case letters, digits and '-', starting with a letter and ending with a letter or digit", what)
	}
	return nil
}

// CheckDeploymentName says what is wrong with a deployment's name, nil when nothing is.
func CheckDeploymentName(name string) error {
	return checkName("deployment name", name, MaxNameLength)
}

// Status is a deployment's status, as stored in deployments.status; the type
// is db's (the generated rows carry it), deployment names its values.
type Status = db.DeploymentStatus

// Deployment statuses.
const (
	StatusPending  Status = "pending"
	StatusDeployed Status = "deployed"
	StatusFailed   Status = "failed"
	StatusDeleting Status = "deleting"
	StatusDeleted  Status = "deleted"
)

// queueTask inserts a top-level task of kind for a deployment, with its
// inputs and sealed secret inputs, and queues it, inside tx.
func (s *Service) queueTask(ctx context.Context, tx pgx.Tx, deploymentID int64, kind string, inputs any, secretInputs map[string]string, by string) (db.Task, error) {
	return s.insertTask(ctx, tx, deploymentID, kind, inputs, secretInputs, by, nil, nil)
}

// insertTask inserts and queues a task inside tx: a top-level one (parentStep
// and root nil), or a nested one started by step parentStep of root's chain.
func (s *Service) insertTask(ctx context.Context, tx pgx.Tx, deploymentID int64, kind string, inputs any, secretInputs map[string]string, by string, parentStep, root *int64) (db.Task, error) {
	q := s.q.WithTx(tx)
	in, err := json.Marshal(inputs)
	if err != nil {
		return db.Task{}, fmt.Errorf("deployment: %s inputs: %w", kind, err)
	}
	task, err := q.InsertTask(ctx, db.InsertTaskParams{DeploymentID: deploymentID, Kind: kind, Inputs: in,
		CreatedBy: by, ParentStepID: parentStep, RootTaskID: root})
	if err != nil {
		return db.Task{}, fmt.Errorf("deployment: queue %s: %w", kind, err)
	}
	if task.SecretInputs, err = s.box.SealValues(secretInputs, TaskSecretsAt(task.ID, deploymentID)); err != nil {
		return db.Task{}, fmt.Errorf("deployment: %s inputs: %w", kind, err)
	}
	if err := q.SetTaskSecretInputs(ctx, db.SetTaskSecretInputsParams{ID: task.ID, SecretInputs: task.SecretInputs}); err != nil {
		return db.Task{}, fmt.Errorf("deployment: queue %s: %w", kind, err)
	}
	if root == nil {
		if err := q.SetTaskRoot(ctx, task.ID); err != nil {
			return db.Task{}, fmt.Errorf("deployment: queue %s: %w", kind, err)
		}
	}
	if err := s.queue.Enqueue(ctx, tx, task.ID); err != nil {
		return db.Task{}, fmt.Errorf("deployment: queue %s: %w", kind, err)
	}
	return task, nil
}
