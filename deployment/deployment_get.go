package deployment

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/styrmin/styrmin"
	"github.com/styrmin/styrmin/db"
	"github.com/styrmin/styrmin/drivers"
	"github.com/styrmin/styrmin/executor"
	"github.com/styrmin/styrmin/kube"
)

// Deployment is one installed application as pages and the API show it:
// never a secret value, only which secret parameters are set.
type Deployment struct {
	ID                    int64
	Name, Namespace       string
	NamespaceCreated      bool
	Driver, DriverVersion string
	AppVersion            string
	Status                Status
	Parameters            map[string]any
	SecretsSet            []string
	Components            map[string]ComponentState
	CreatedBy             string
	CreatedAt, UpdatedAt  time.Time
	DeletedAt             *time.Time
	// Busy is true while a task holds the deployment.
	Busy bool
}

// ComponentState is what Styrmin remembers of a component: whether it was
// stopped, and the replicas of its workloads before that (what start restores).
type ComponentState struct {
	Stopped   bool            `json:"stopped"`
	Workloads []kube.Workload `json:"workloads,omitempty"`
}

// toDeployment converts a row, reading which secrets are set without opening
// them (deployments.secret_names).
func toDeployment(row db.Deployment) (*Deployment, error) {
	d := &Deployment{
		ID: row.ID, Name: row.Name, Namespace: row.Namespace, NamespaceCreated: row.NamespaceCreated,
		Driver: row.DriverName, DriverVersion: row.DriverVersion, AppVersion: row.AppVersion,
		Status: row.Status, CreatedBy: row.CreatedBy, CreatedAt: row.CreatedAt, UpdatedAt: row.UpdatedAt,
		DeletedAt: row.DeletedAt, Busy: row.HolderTaskID != nil, SecretsSet: row.SecretNames,
	}
	if err := json.Unmarshal(row.Parameters, &d.Parameters); err != nil {
		return nil, fmt.Errorf("deployment: decode parameters of %s: %w", row.Name, err)
	}
	if err := json.Unmarshal(row.Components, &d.Components); err != nil {
		return nil, fmt.Errorf("deployment: decode components of %s: %w", row.Name, err)
	}
	return d, nil
}

// Get returns the deployment of that name: the live one, else the one deleted
// last. An unknown name is an ENOTFOUND error.
func (s *Service) Get(ctx context.Context, name string) (*Deployment, error) {
	row, err := s.q.GetDeploymentByName(ctx, name)
	if errors.Is(err, pgx.ErrNoRows) {
		return nil, styrmin.Errorf(styrmin.ENOTFOUND, "There is no deployment named %q.", name)
	}
	if err != nil {
		return nil, fmt.Errorf("deployment: get %s: %w", name, err)
	}
	return toDeployment(row)
}

// Summary is a deployment in the list, with its driver and its last task.
type Summary struct {
	Deployment
	DriverTitle string
	HasIcon     bool
	LastTask    TaskSummary
}

// TaskSummary names a task without its steps.
type TaskSummary struct {
	ID        int64
	Kind      string
	Status    executor.TaskStatus
	By        string
	CreatedAt time.Time
}

// List returns the deployments, live ones first by name, then (with
// includeDeleted) the deleted ones.
func (s *Service) List(ctx context.Context, includeDeleted bool) ([]Summary, error) {
	rows, err := s.q.ListDeployments(ctx, includeDeleted)
	if err != nil {
		return nil, fmt.Errorf("deployment: list: %w", err)
	}
	out := make([]Summary, 0, len(rows))
	for _, r := range rows {
		d, err := toDeployment(r.Deployment)
		if err != nil {
			return nil, err
		}
		out = append(out, Summary{
			Deployment: *d, DriverTitle: r.DriverTitle, HasIcon: r.HasIcon,
			LastTask: TaskSummary{ID: r.LastTaskID, Kind: r.LastTaskKind, Status: r.LastTaskStatus, By: r.LastTaskBy, CreatedAt: r.LastTaskAt},
		})
	}
	return out, nil
}

// ComponentTitle is a component's title, or its name.
func ComponentTitle(c drivers.Component) string {
	if c.Title != "" {
		return c.Title
	}
	return c.Name
}
