package deployment

import (
	"cmp"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/styrmin/styrmin"
	"github.com/styrmin/styrmin/catalog"
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
	// TeamID is the team the deployment belongs to (package teams); Team is
	// its name, set by the list and View only.
	TeamID int64
	Team   string
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
		DeletedAt: row.DeletedAt, Busy: row.HolderTaskID != nil, SecretsSet: row.SecretNames, TeamID: row.TeamID,
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
		return nil, NoSuchDeployment(name)
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
	// Health is the newest health read of a live deployment (by a view or
	// WatchHealth), nil before the first.
	Health *Health
	// Drift is the newest drift read of a live deployment (by a view or
	// WatchDrift), nil before the first.
	Drift *Drift
	// UpdateAvailable is the newest version of a live deployment's driver
	// that it may upgrade to (catalog.Entry.UpdateFor), "" for none.
	UpdateAvailable string
}

// TaskSummary names a task without its steps.
type TaskSummary struct {
	ID        int64
	Kind      string
	Status    executor.TaskStatus
	By        string
	CreatedAt time.Time
}

// DefaultListPage is how many deployments a page of the list holds when
// ListOptions names no size.
const DefaultListPage = 100

// ListKey is a deployment's place in the list: live ones by name, then
// deleted ones by name, newest first.
type ListKey struct {
	Deleted bool   `json:"deleted"`
	Name    string `json:"name"`
	ID      int64  `json:"id"`
}

// String is k as a page's address holds it: live:NAME:ID or deleted:NAME:ID.
func (k ListKey) String() string {
	state := "live"
	if k.Deleted {
		state = "deleted"
	}
	return state + ":" + k.Name + ":" + strconv.FormatInt(k.ID, 10)
}

// ParseListKey reads a ListKey's String; anything else is an EINVALID error.
func ParseListKey(s string) (*ListKey, error) {
	state, rest, _ := strings.Cut(s, ":")
	i := strings.LastIndexByte(rest, ':')
	if i < 0 || (state != "live" && state != "deleted") {
		return nil, styrmin.Errorf(styrmin.EINVALID, "%q is not a place in the deployments list: follow the list's own links.", s)
	}
	id, err := strconv.ParseInt(rest[i+1:], 10, 64)
	if err != nil {
		return nil, styrmin.Errorf(styrmin.EINVALID, "%q is not a place in the deployments list: follow the list's own links.", s)
	}
	return &ListKey{Deleted: state == "deleted", Name: rest[:i], ID: id}, nil
}

// keyOf is d's place in the list.
func keyOf(d *Deployment) ListKey {
	return ListKey{Deleted: d.DeletedAt != nil, Name: d.Name, ID: d.ID}
}

// ListOptions select a page of the deployments list.
type ListOptions struct {
	// IncludeDeleted lists the deleted deployments too, after the live ones.
	IncludeDeleted bool
	// After continues the list after this place (a page's Next); nil
	// starts at the top.
	After *ListKey
	// Before reads the page that ends before this place (a page's Prev),
	// instead of After; when fewer than a page are left before it, the
	// page is the first one.
	Before *ListKey
	// Limit is the page's size (0: DefaultListPage).
	Limit int
	// Filter narrows the list; a page's Next and Prev keep the same filter.
	Filter ListFilter
	// Teams, when not nil, keeps the deployments of these teams only (in
	// SQL): the teams whose deployments the reader may see (teams.Visible).
	Teams []int64
}

// ListPage is a page of the deployments list.
type ListPage struct {
	Items []Summary
	// Next continues the list (ListOptions.After); nil after the last page.
	Next *ListKey
	// Prev goes back a page (ListOptions.Before); nil on the first page.
	Prev *ListKey
}

// List returns a page of the deployments that o's filter keeps, live ones
// by name, then (with IncludeDeleted) the deleted ones; a page reads its own
// rows only, forwards from o.After or backwards from o.Before (a keyset
// either way, through the same indexes). A bad filter, or both places, is
// an EINVALID error.
func (s *Service) List(ctx context.Context, o ListOptions) (ListPage, error) {
	if err := o.Filter.check(); err != nil {
		return ListPage{}, err
	}
	if o.After != nil && o.Before != nil {
		return ListPage{}, styrmin.Errorf(styrmin.EINVALID, "A page of the deployments list starts after a place or ends before one, not both.")
	}
	limit := cmp.Or(o.Limit, DefaultListPage)
	p := db.ListDeploymentsParams{IncludeDeleted: o.IncludeDeleted, MaxRows: int32(limit + 1)}
	if o.Teams != nil {
		p.OnlyTeams, p.TeamIds = true, o.Teams
	}
	if none := s.applyFilter(o.Filter, &p); none {
		return ListPage{}, nil
	}
	if o.Before != nil {
		page, first, err := s.listBefore(ctx, p, *o.Before, limit)
		if err != nil || !first {
			return page, err
		}
		// Fewer than a page before o.Before: back to the top, a whole first page.
	}
	if o.After != nil {
		p.After, p.AfterDeleted, p.AfterName, p.AfterID = true, o.After.Deleted, o.After.Name, o.After.ID
	}
	rows, err := s.q.ListDeployments(ctx, p)
	if err != nil {
		return ListPage{}, fmt.Errorf("deployment: list: %w", err)
	}
	more := len(rows) > limit
	page, err := s.summaries(ctx, rows[:min(len(rows), limit)])
	if err != nil || len(page.Items) == 0 {
		return page, err
	}
	if more {
		next := keyOf(&page.Items[len(page.Items)-1].Deployment)
		page.Next = &next
	}
	if o.After != nil {
		prev := keyOf(&page.Items[0].Deployment)
		page.Prev = &prev
	}
	return page, nil
}

// listBefore reads the page of p's list that ends before key, backwards;
// first reports that fewer than a page are left before key (the page is
// then empty: the caller reads the first page instead).
func (s *Service) listBefore(ctx context.Context, p db.ListDeploymentsParams, key ListKey, limit int) (page ListPage, first bool, err error) {
	rows, err := s.q.ListDeploymentsBefore(ctx, db.ListDeploymentsBeforeParams{
		IncludeDeleted: p.IncludeDeleted, Query: p.Query, Driver: p.Driver, Namespace: p.Namespace,
		OnlyNames: p.OnlyNames, Names: p.Names, ExceptNames: p.ExceptNames, OnlyTeams: p.OnlyTeams, TeamIds: p.TeamIds,
		BeforeDeleted: key.Deleted, BeforeName: key.Name, BeforeID: key.ID, MaxRows: p.MaxRows,
	})
	if err != nil {
		return ListPage{}, false, fmt.Errorf("deployment: list before %s: %w", key, err)
	}
	if len(rows) <= limit {
		return ListPage{}, true, nil
	}
	forward := make([]db.ListDeploymentsRow, limit)
	for i, r := range rows[:limit] {
		forward[limit-1-i] = db.ListDeploymentsRow(r)
	}
	if page, err = s.summaries(ctx, forward); err != nil {
		return ListPage{}, false, err
	}
	prev, next := keyOf(&page.Items[0].Deployment), keyOf(&page.Items[limit-1].Deployment)
	page.Prev, page.Next = &prev, &next
	return page, false, nil
}

// summaries are the list's rows as a page's items, with the newest health
// and drift reads of the live ones and their available updates.
func (s *Service) summaries(ctx context.Context, rows []db.ListDeploymentsRow) (ListPage, error) {
	updates, err := s.updates(ctx)
	if err != nil {
		return ListPage{}, err
	}
	var page ListPage
	for _, r := range rows {
		d, err := toDeployment(r.Deployment)
		if err != nil {
			return ListPage{}, err
		}
		d.Team = r.TeamName
		sum := Summary{
			Deployment: *d, DriverTitle: r.DriverTitle, HasIcon: r.HasIcon,
			LastTask: TaskSummary{ID: r.LastTaskID, Kind: r.LastTaskKind, Status: r.LastTaskStatus, By: r.LastTaskBy, CreatedAt: r.LastTaskAt},
		}
		if d.DeletedAt == nil {
			sum.Health, _ = s.healths.newest(d.Name)
			sum.Drift, _ = s.drifts.newest(d.Name)
			sum.UpdateAvailable = updates(d)
		}
		page.Items = append(page.Items, sum)
	}
	return page, nil
}

// ComponentTitle is a component's title, or its name.
func ComponentTitle(c drivers.Component) string {
	if c.Title != "" {
		return c.Title
	}
	return c.Name
}

// updates returns what tells a live deployment's available update, from one
// read of the catalogue's listing (kept between reads) for a whole page.
func (s *Service) updates(ctx context.Context) (func(*Deployment) string, error) {
	listing, err := s.catalog.Listing(ctx)
	if err != nil {
		return nil, fmt.Errorf("deployment: updates: %w", err)
	}
	byName := make(map[string]catalog.Entry, len(listing.Entries))
	for _, e := range listing.Entries {
		byName[e.Name] = e
	}
	return func(d *Deployment) string {
		if d.DeletedAt != nil {
			return ""
		}
		return byName[d.Driver].UpdateFor(d.DriverVersion)
	}, nil
}

// NoSuchDeployment is the error of a name no deployment has: also what a user
// is told of a deployment of a team they may not see, so that names do not
// leak.
func NoSuchDeployment(name string) error {
	return styrmin.Errorf(styrmin.ENOTFOUND, "There is no deployment named %q.", name)
}
