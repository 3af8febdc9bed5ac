package web

import (
	"context"

	"github.com/styrmin/styrmin/deployment"
)

// deploymentReader is what the deployment pages read.
type deploymentReader interface {
	Get(ctx context.Context, name string) (*deployment.Deployment, error)
	List(ctx context.Context, o deployment.ListOptions) (deployment.ListPage, error)
	View(ctx context.Context, name string, o deployment.ViewOptions) (*deployment.View, error)
	Health(ctx context.Context, name string) (*deployment.Health, error)
	Drift(ctx context.Context, name string) (*deployment.Drift, error)
	Tasks(ctx context.Context, deploymentID, before int64, pageSize int) ([]deployment.Task, int64, error)
	TasksWithSteps(ctx context.Context, deploymentID, before int64, pageSize int, withSteps func(int, *deployment.Task) bool) ([]deployment.Task, int64, error)
	Task(ctx context.Context, deployment string, id int64) (*deployment.Task, error)
	TaskList(ctx context.Context, f deployment.TaskFilter) (*deployment.TaskList, error)
	TaskByID(ctx context.Context, id int64) (*deployment.NamedTask, error)
	PodLog(ctx context.Context, req deployment.LogRequest) (*deployment.PodLog, error)
	Artefacts(ctx context.Context, name string) (*deployment.Artefacts, error)
}

// deploymentInstaller is what the install and upgrade forms need: their
// starting text, and the review and queueing of what was entered.
type deploymentInstaller interface {
	InstallForm(ctx context.Context, driver, version string) (*deployment.Form, error)
	UpgradeForm(ctx context.Context, name, driverVersion string) (*deployment.UpgradeForm, error)
	EditUpgrade(ctx context.Context, token, by string) (*deployment.UpgradeForm, error)
	Review(ctx context.Context, op *deployment.Upgrade) (*deployment.Review, error)
	Queue(ctx context.Context, op deployment.Operation) (*deployment.Queued, error)
}

// deploymentOperator is what the buttons of a deployment's page need.
type deploymentOperator interface {
	DeleteForm(ctx context.Context, name string) (*deployment.DeleteForm, error)
	Queue(ctx context.Context, op deployment.Operation) (*deployment.Queued, error)
	CancelTask(ctx context.Context, name string, taskID int64, by string) error
}

// Deployments is what the deployment pages need from deployment.Service.
type Deployments interface {
	deploymentReader
	deploymentInstaller
	deploymentOperator
	driftAccepter
}

var _ Deployments = (*deployment.Service)(nil)
