package deployment

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strconv"

	"github.com/jackc/pgx/v5"

	"github.com/styrmin/styrmin"
	"github.com/styrmin/styrmin/db"
	"github.com/styrmin/styrmin/executor"
)

// NamedTask is a task with the name of its deployment.
type NamedTask struct {
	Task
	Deployment string
}

// TaskFilter says which tasks a TaskList holds; zero fields keep every task.
type TaskFilter struct {
	// Deployment keeps the tasks of the deployments of that name (a deleted
	// deployment's name may have been used again).
	Deployment string
	// Status keeps the tasks of that status.
	Status executor.TaskStatus
	// Kind keeps the tasks of that kind.
	Kind string
	// Before is the id of the last task of the previous page (0 for the first).
	Before int64
	// PageSize is how many tasks a page holds (DefaultTaskPage when 0).
	PageSize int
	// Teams, when not nil, keeps the tasks of the deployments of these
	// teams only (in the query: what a member may see); a Deployment of
	// another team is then one that does not exist.
	Teams []int64
	// SummaryOnly leaves the tasks' steps out and reads only what they add
	// up to (Task.StepCount and Task.Summary), as the tasks page shows them.
	SummaryOnly bool
}

// TaskList is a page of the task list, as the tasks page and the REST
// API's GET /tasks show it: the top-level tasks of every deployment that its
// filter keeps, newest first, each with its deployment's name, its typed
// inputs, its queue position, and its steps with the tasks they started (or
// their summary only).
type TaskList struct {
	Tasks []NamedTask
	// Next is the Before of the next page, 0 at the end.
	Next int64
}

// findTasks reads the page of tasks f asks for, and one more (is there a
// next page?), through the query bounded by the page: of every team, of a
// member's teams (f.Teams), or of the named deployment.
func (s *Service) findTasks(ctx context.Context, f TaskFilter) ([]db.FindTasksRow, error) {
	pageSize, before := int32(f.PageSize+1), db.PageBefore(f.Before)
	switch {
	case f.Deployment != "":
		return convertRows(s.q.FindDeploymentTasks(ctx, db.FindDeploymentTasksParams{BeforeID: before,
			DeploymentName: f.Deployment, Status: string(f.Status), Kind: f.Kind,
			OnlyTeams: f.Teams != nil, TeamIds: f.Teams, PageSize: pageSize}))
	case f.Teams != nil:
		return convertRows(s.q.FindTeamTasks(ctx, db.FindTeamTasksParams{BeforeID: before,
			Status: string(f.Status), Kind: f.Kind, TeamIds: f.Teams, PageSize: pageSize}))
	default:
		return s.q.FindTasks(ctx, db.FindTasksParams{BeforeID: before,
			Status: string(f.Status), Kind: f.Kind, PageSize: pageSize})
	}
}

// convertRows converts the rows of a task list query, which have
// FindTasksRow's columns, to FindTasksRow.
func convertRows[Row ~struct {
	Task           db.Task
	DeploymentName string
}](rows []Row, err error) ([]db.FindTasksRow, error) {
	page := make([]db.FindTasksRow, len(rows))
	for i, r := range rows {
		page[i] = db.FindTasksRow(r)
	}
	return page, err
}

// TaskList reads a page of the task list in a number of queries bounded by
// the levels of nesting, never by the tasks on the page or the history: the
// page, the queue positions of its queued tasks, their steps, then the log
// lines and linked tasks of those steps (with SummaryOnly, the steps'
// summaries instead). A deployment name that no deployment ever had, or
// whose deployment is in none of f.Teams, is an ENOTFOUND error, in the same
// words.
func (s *Service) TaskList(ctx context.Context, f TaskFilter) (*TaskList, error) {
	if f.PageSize <= 0 {
		f.PageSize = DefaultTaskPage
	}
	if f.Deployment != "" {
		team, err := s.q.GetDeploymentTeam(ctx, f.Deployment)
		switch {
		case errors.Is(err, pgx.ErrNoRows), err == nil && f.Teams != nil && !slices.Contains(f.Teams, team):
			return nil, NoSuchDeployment(f.Deployment)
		case err != nil:
			return nil, fmt.Errorf("deployment: team of %s: %w", f.Deployment, err)
		}
	}
	rows, err := s.findTasks(ctx, f)
	if err != nil {
		return nil, fmt.Errorf("deployment: find tasks: %w", err)
	}
	list := &TaskList{}
	if len(rows) > f.PageSize {
		rows = rows[:f.PageSize]
		list.Next = rows[f.PageSize-1].Task.ID
	}
	plain := make([]db.Task, len(rows))
	for i, r := range rows {
		plain[i] = r.Task
	}
	read := s.withSteps
	if f.SummaryOnly {
		read = s.withSummaries
	}
	tasks, err := read(ctx, plain)
	if err != nil {
		return nil, err
	}
	list.Tasks = make([]NamedTask, len(rows))
	for i, r := range rows {
		list.Tasks[i] = NamedTask{Task: tasks[i], Deployment: r.DeploymentName}
	}
	return list, nil
}

// TaskByID returns a task, top-level or linked, with its steps and its
// deployment's name. An unknown id is an ENOTFOUND error.
func (s *Service) TaskByID(ctx context.Context, id int64) (*NamedTask, error) {
	row, err := s.q.GetTaskOfDeployment(ctx, id)
	if errors.Is(err, pgx.ErrNoRows) {
		return nil, NoSuchTask(strconv.FormatInt(id, 10))
	}
	if err != nil {
		return nil, fmt.Errorf("deployment: task %d: %w", id, err)
	}
	tasks, err := s.withSteps(ctx, []db.Task{row.Task})
	if err != nil {
		return nil, err
	}
	return &NamedTask{Task: tasks[0], Deployment: row.DeploymentName}, nil
}

// NoSuchTask is the error of a task id no task has: also what a user is told
// of a task of a deployment they may not see.
func NoSuchTask(id string) error {
	return styrmin.Errorf(styrmin.ENOTFOUND, "There is no task %s.", id)
}
