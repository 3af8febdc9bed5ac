package teams

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"

	"github.com/jackc/pgx/v5"

	"github.com/styrmin/styrmin/auth"
	"github.com/styrmin/styrmin/db"
)

// Access is what a user may do, team by team: their own role holds over
// every team's deployments, and their role in a team they belong to over
// that team's; the higher of the two counts.
type Access struct {
	User  auth.User
	Teams Memberships
}

// AccessOf reads a user's access: their teams in one query, none for an
// admin, whom no team's role can raise. A user acting in one team only (an
// API token narrowed to it: auth.User.OnlyTeam) keeps their membership of
// that team, read at each request: once they leave it, the token reaches
// nothing.
func (s *Store) AccessOf(ctx context.Context, u auth.User) (Access, error) {
	a := Access{User: u}
	if u.Role.AtLeast(auth.Admin) {
		return a, nil
	}
	var err error
	a.Teams, err = s.Of(ctx, u.ID)
	if u.OnlyTeam != 0 {
		a.Teams = slices.DeleteFunc(a.Teams, func(m Membership) bool { return m.TeamID != u.OnlyTeam })
	}
	return a, err
}

// Role returns the user's role over the deployments of a team. Below
// auth.ReadOnly, the user may not even know the team's deployments exist.
func (a Access) Role(teamID int64) auth.Role { return max(a.User.Role, a.Teams.RoleIn(teamID)) }

// Highest returns the user's highest role in any team, or their own when it
// is higher: what they may do somewhere, such as deploy.
func (a Access) Highest() auth.Role {
	r := a.User.Role
	for _, t := range a.Teams {
		r = max(r, t.Role)
	}
	return r
}

// Visible returns the teams whose deployments a list shows the user: nil
// for every team (their own role reads every team's), else the teams they
// belong to (empty: none).
func (a Access) Visible() []int64 {
	if a.User.Role.AtLeast(auth.ReadOnly) {
		return nil
	}
	ids := make([]int64, 0, len(a.Teams))
	for _, t := range a.Teams {
		ids = append(ids, t.TeamID)
	}
	return ids
}

// RoleOnDeployment returns the user's role over the deployment of that name
// (the live one, else the one deleted last); over a name no deployment ever
// had, their own role.
func (s *Store) RoleOnDeployment(ctx context.Context, a Access, name string) (auth.Role, error) {
	team, err := s.q.GetDeploymentTeam(ctx, name)
	return a.roleOn(team, err)
}

// RoleOnTeam returns the user's role over the team of that name (Role);
// over a name no team has, their own role.
func (s *Store) RoleOnTeam(ctx context.Context, a Access, name string) (auth.Role, error) {
	team, err := s.q.GetTeamByName(ctx, name)
	return a.roleOn(team.ID, err)
}

// RoleOnTask returns the user's role over the deployment of a task; over an
// id no task has, their own role.
func (s *Store) RoleOnTask(ctx context.Context, a Access, taskID int64) (auth.Role, error) {
	team, err := s.q.GetTaskTeam(ctx, taskID)
	return a.roleOn(team, err)
}

// RoleOnWebhook returns the user's role over a webhook: Role in its team;
// over a global webhook, or an id no webhook has, their own role.
func (s *Store) RoleOnWebhook(ctx context.Context, a Access, id int64) (auth.Role, error) {
	team, err := s.q.GetWebhookTeam(ctx, id)
	if err == nil && team == nil {
		return a.User.Role, nil
	}
	if team == nil {
		team = new(int64)
	}
	return a.roleOn(*team, err)
}

// roleOn is Role of the team a lookup found, or the user's own role when it
// found none: no team raises it, and a user who may not read every team's
// deployments learns nothing of a name from the answer.
func (a Access) roleOn(team int64, lookup error) (auth.Role, error) {
	if errors.Is(lookup, pgx.ErrNoRows) {
		return a.User.Role, nil
	}
	if lookup != nil {
		return auth.Anonymous, db.Classify(lookup)
	}
	return a.Role(team), nil
}

// Visible returns the teams whose deployments a list shows the user
// (Access.Visible), reading their teams only when their own role does not
// read every team's.
func (s *Store) Visible(ctx context.Context, u auth.User) ([]int64, error) {
	if u.Role.AtLeast(auth.ReadOnly) {
		return nil, nil
	}
	a, err := s.AccessOf(ctx, u)
	return a.Visible(), err
}

// Deployable is where a user may deploy new deployments.
type Deployable struct {
	// Names are the teams a deploy form offers, by name.
	Names []string
	// IDs are the teams an install may name (deployment.Install's
	// TeamsAllowed); nil for every team.
	IDs []int64
	// Admin is set for a global admin (deployment.Install's Admin).
	Admin bool
	// policies are the policies of the teams of Names.
	policies map[string]Policy
}

// Deployable returns where the user of a may deploy: every team when
// their own role is operator or more, else the teams where a's memberships
// (as AccessOf read them: a user whose own role is operator or more needs
// none) give them that role. It reads the names and policies of those teams
// only, in one query, and none when there are none.
func (s *Store) Deployable(ctx context.Context, a Access) (Deployable, error) {
	d := Deployable{Admin: a.User.Role.AtLeast(auth.Admin), policies: map[string]Policy{}}
	every := a.User.Role.AtLeast(auth.Operator)
	var ids []int64
	if !every {
		for _, m := range a.Teams {
			if m.Role.AtLeast(auth.Operator) {
				ids = append(ids, m.TeamID)
			}
		}
		if d.IDs = []int64{}; len(ids) == 0 {
			return d, nil
		}
	}
	rows, err := s.q.ListTeamPolicies(ctx, db.ListTeamPoliciesParams{EveryTeam: every, Ids: ids})
	if err != nil {
		return Deployable{}, db.Classify(err)
	}
	for _, t := range rows {
		d.Names, d.policies[t.Name] = append(d.Names, t.Name), PolicyOf(db.Team{Namespaces: t.Namespaces, Drivers: t.Drivers,
			MaxDeployments: t.MaxDeployments, MaxCpuMillis: t.MaxCpuMillis, MaxMemoryBytes: t.MaxMemoryBytes})
		if !every {
			d.IDs = append(d.IDs, t.ID)
		}
	}
	return d, nil
}

// ForDriver returns the teams of Names that may deploy a driver of that
// name and labels (their policies' Drivers), and, when there are teams
// but none may, why.
func (d Deployable) ForDriver(name string, labels map[string]string) (offered []string, why string) {
	var refused []string
	for _, team := range d.Names {
		if p := d.policies[team]; p.AllowsDriver(name, labels) {
			offered = append(offered, team)
		} else {
			refused = append(refused, fmt.Sprintf("%s may deploy %s", team, p.DriversAllowed()))
		}
	}
	if len(offered) == 0 && len(refused) > 0 {
		why = fmt.Sprintf("None of your teams may deploy the driver %s (%s); ask an admin to allow it for one of them.", name, strings.Join(refused, "; "))
	}
	return offered, why
}
