package deployment

import (
	"context"
	"errors"
	"fmt"

	"github.com/jackc/pgx/v5"

	"github.com/styrmin/styrmin"
	"github.com/styrmin/styrmin/db"
)

// TaskByID returns a task with its steps and the name of its deployment,
// for callers that know only the task (the API's /tasks/{id}). An unknown id
// is an ENOTFOUND error.
func (s *Service) TaskByID(ctx context.Context, id int64) (*Task, string, error) {
	row, err := s.q.GetTask(ctx, id)
	if errors.Is(err, pgx.ErrNoRows) {
		return nil, "", styrmin.Errorf(styrmin.ENOTFOUND, "There is no task %d.", id)
	}
	if err != nil {
		return nil, "", fmt.Errorf("deployment: task %d: %w", id, err)
	}
	dep, err := s.q.GetDeploymentByID(ctx, row.DeploymentID)
	if err != nil {
		return nil, "", fmt.Errorf("deployment: deployment of task %d: %w", id, err)
	}
	tasks, err := s.withSteps(ctx, []db.Task{row})
	if err != nil {
		return nil, "", err
	}
	return &tasks[0], dep.Name, nil
}
