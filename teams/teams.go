// Package teams owns teams: who belongs to which team with which role, which
// team each deployment is in, and so what a user may do with a deployment
// (RoleOn) and which deployments a list shows them (Visible).
package teams

import (
	"context"
	"errors"
	"fmt"
	"regexp"
	"slices"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/styrmin/styrmin"
	"github.com/styrmin/styrmin/audit"
	"github.com/styrmin/styrmin/auth"
	"github.com/styrmin/styrmin/db"
)

// Default is the team every deployment and user was in before teams, and
// the team of an install that names none. It cannot be deleted.
const Default = "default"

// Team is a group of users and the deployments they share.
type Team struct {
	ID        int64
	Name      string
	CreatedAt time.Time
	// Members and Deployments count the team's members and live deployments.
	Members, Deployments int64
	Policy               Policy
}

// Member is a user's place in a team.
type Member struct {
	UserID   int64
	Username string
	// Role is the user's role in the team: admin, operator or read-only.
	Role auth.Role
	// UserRole is the user's own role, which holds in every team.
	UserRole auth.Role
}

// Membership is one team of a user and their role in it.
type Membership struct {
	TeamID int64
	Team   string
	Role   auth.Role
}

// Memberships are a user's teams.
type Memberships []Membership

// RoleIn returns the role the memberships give in a team: Anonymous when the
// user is not a member.
func (m Memberships) RoleIn(teamID int64) auth.Role {
	for _, t := range m {
		if t.TeamID == teamID {
			return t.Role
		}
	}
	return auth.Anonymous
}

// Store reads and changes teams in PostgreSQL.
type Store struct {
	pool *pgxpool.Pool
	q    *db.Queries
}

// NewStore returns the teams of a database.
func NewStore(pool *pgxpool.Pool) *Store { return &Store{pool: pool, q: db.New(pool)} }

var nameRE = regexp.MustCompile(`^[a-z]([a-z0-9-]{0,61}[a-z0-9])?$`)

// CheckName refuses a team name that is not a DNS label (the table's rule).
func CheckName(name string) error {
	if !nameRE.MatchString(name) {
		return &styrmin.Error{Code: styrmin.EINVALID, Message: fmt.Sprintf("%q is not a team name: use lower-case letters, digits and '-', starting with a letter, at most 63 characters.", name), Fields: map[string]string{"name": "Use lower-case letters, digits and '-', starting with a letter."}}
	}
	return nil
}

// Create adds a team without members.
func (s *Store) Create(ctx context.Context, name string) (Team, error) {
	if err := CheckName(name); err != nil {
		return Team{}, err
	}
	row, err := s.q.CreateTeam(ctx, name)
	if db.IsUniqueViolation(err) {
		return Team{}, &styrmin.Error{Code: styrmin.ECONFLICT, Message: fmt.Sprintf("A team named %s exists.", name), Fields: map[string]string{"name": "This name is taken."}}
	}
	if err != nil {
		return Team{}, db.Classify(err)
	}
	return Team{ID: row.ID, Name: row.Name, CreatedAt: row.CreatedAt}, nil
}

// List returns every team by name, with its counts.
func (s *Store) List(ctx context.Context) ([]Team, error) {
	seen, err := s.listSeen(ctx, 0, true)
	teams := make([]Team, len(seen))
	for i, t := range seen {
		teams[i] = t.Team
	}
	return teams, err
}

// Seen is a team in a user's list, with their role in it.
type Seen struct {
	Team
	// Role is the user's role in the team; auth.Anonymous when they are not
	// a member.
	Role auth.Role
}

// ListSeen returns the teams a user sees, by name, with their role in each:
// every team when their own role reads every team's deployments
// (Access.Visible), else the teams they belong to.
func (s *Store) ListSeen(ctx context.Context, u auth.User) ([]Seen, error) {
	return s.listSeen(ctx, u.ID, u.Role.AtLeast(auth.ReadOnly))
}

// listSeen reads the teams of ListSeen.
func (s *Store) listSeen(ctx context.Context, userID int64, everyTeam bool) ([]Seen, error) {
	rows, err := s.q.ListTeamsSeen(ctx, db.ListTeamsSeenParams{UserID: userID, EveryTeam: everyTeam})
	if err != nil {
		return nil, db.Classify(err)
	}
	seen := make([]Seen, len(rows))
	for i, r := range rows {
		seen[i] = Seen{Role: roleOf(r.MyRole.String), Team: Team{ID: r.ID, Name: r.Name, CreatedAt: r.CreatedAt, Members: r.Members, Deployments: r.Deployments,
			Policy: PolicyOf(db.Team{Namespaces: r.Namespaces, Drivers: r.Drivers, MaxDeployments: r.MaxDeployments, MaxCpuMillis: r.MaxCpuMillis, MaxMemoryBytes: r.MaxMemoryBytes})}}
	}
	return seen, nil
}

// Detail is what a team's page shows: the team with its counts and policy,
// and its members.
type Detail struct {
	Team
	Members []Member
}

// Detail returns the team of that name with its members.
func (s *Store) Detail(ctx context.Context, name string) (Detail, error) {
	t, err := s.Get(ctx, name)
	if err != nil {
		return Detail{}, err
	}
	d := Detail{Team: t}
	if d.Deployments, err = s.q.CountLiveTeamDeployments(ctx, t.ID); err != nil {
		return Detail{}, db.Classify(err)
	}
	if d.Members, err = s.members(ctx, t.ID); err != nil {
		return Detail{}, err
	}
	d.Team.Members = int64(len(d.Members))
	return d, nil
}

// NoSuchTeam is the error of a team name nobody uses, and of a team a user
// may not know of.
func NoSuchTeam(name string) error {
	return styrmin.Errorf(styrmin.ENOTFOUND, "There is no team named %s.", name)
}

// Get returns the team of that name.
func (s *Store) Get(ctx context.Context, name string) (Team, error) {
	row, err := s.q.GetTeamByName(ctx, name)
	if errors.Is(err, pgx.ErrNoRows) {
		return Team{}, NoSuchTeam(name)
	}
	if err != nil {
		return Team{}, db.Classify(err)
	}
	return Team{ID: row.ID, Name: row.Name, CreatedAt: row.CreatedAt, Policy: PolicyOf(row)}, nil
}

// Delete removes a team and its memberships. It refuses the default team and
// a team that holds deployments, deleted ones included: their history names
// the team.
func (s *Store) Delete(ctx context.Context, name string) error {
	if name == Default {
		return styrmin.Errorf(styrmin.ECONFLICT, "The team %s cannot be deleted: it holds every deployment an install puts in no other team.", Default)
	}
	row, err := s.q.DeleteEmptyTeam(ctx, name)
	switch {
	case err != nil:
		return db.Classify(err)
	case !row.Found:
		return NoSuchTeam(name)
	case row.Held > 0:
		return styrmin.Errorf(styrmin.ECONFLICT, "The team %s still holds deployments (%d, deleted ones included: their history names the team); it cannot be deleted.", name, row.Held)
	}
	return nil
}

// SetMember makes a user a member of a team with a role (admin, operator or
// read-only), or changes their role there.
func (s *Store) SetMember(ctx context.Context, team string, userID int64, role auth.Role) error {
	audit.Note(ctx, "role", role.String())
	if !role.AtLeast(auth.ReadOnly) {
		return &styrmin.Error{Code: styrmin.EINVALID, Message: "Choose a role in the team: admin, operator or read-only.", Fields: map[string]string{"role": "Choose admin, operator or read-only."}}
	}
	set, err := s.q.SetTeamMemberByName(ctx, db.SetTeamMemberByNameParams{Team: team, UserID: userID, Role: role.String()})
	if err != nil {
		return db.Classify(err)
	}
	if set == 0 {
		return NoSuchTeam(team)
	}
	return nil
}

// RemoveMember takes a user out of a team.
func (s *Store) RemoveMember(ctx context.Context, team string, userID int64) error {
	audit.Note(ctx, "role", "none")
	row, err := s.q.RemoveTeamMemberByName(ctx, db.RemoveTeamMemberByNameParams{Team: team, UserID: userID})
	switch {
	case err != nil:
		return db.Classify(err)
	case !row.Found:
		return NoSuchTeam(team)
	case !row.Removed:
		return styrmin.Errorf(styrmin.ENOTFOUND, "That user is not a member of the team %s.", team)
	}
	return nil
}

// Members returns a team's members by username.
func (s *Store) Members(ctx context.Context, team string) ([]Member, error) {
	t, err := s.Get(ctx, team)
	if err != nil {
		return nil, err
	}
	return s.members(ctx, t.ID)
}

// members reads the members of the team of that id.
func (s *Store) members(ctx context.Context, teamID int64) ([]Member, error) {
	rows, err := s.q.ListTeamMembers(ctx, teamID)
	if err != nil {
		return nil, db.Classify(err)
	}
	members := make([]Member, len(rows))
	for i, r := range rows {
		members[i] = Member{UserID: r.UserID, Username: r.Username, Role: roleOf(r.Role), UserRole: roleOf(r.UserRole)}
	}
	return members, nil
}

// Of returns a user's teams with their role in each.
func (s *Store) Of(ctx context.Context, userID int64) (Memberships, error) {
	rows, err := s.q.ListUserTeams(ctx, userID)
	if err != nil {
		return nil, db.Classify(err)
	}
	m := make(Memberships, len(rows))
	for i, r := range rows {
		m[i] = Membership{TeamID: r.ID, Team: r.Name, Role: roleOf(r.Role)}
	}
	return m, nil
}

// ActingIn returns the teams a user acts in, by name, with their role in
// each: all their teams, or for a user acting in one team only (an API token
// narrowed to it: auth.User.OnlyTeam) that team alone, named in only (its
// membership is gone once they left the team, its name is not).
func (s *Store) ActingIn(ctx context.Context, u auth.User) (only string, m Memberships, err error) {
	if m, err = s.Of(ctx, u.ID); err != nil || u.OnlyTeam == 0 {
		return "", m, err
	}
	m = slices.DeleteFunc(m, func(t Membership) bool { return t.TeamID != u.OnlyTeam })
	if only, err = s.q.GetTeamName(ctx, u.OnlyTeam); err != nil {
		return "", nil, db.Classify(err)
	}
	return only, m, nil
}

// roleOf reads a role the tables' CHECK constraints keep valid.
func roleOf(name string) auth.Role {
	r, err := auth.ParseRole(name)
	if err != nil {
		return auth.Anonymous
	}
	return r
}

// Move puts a live deployment in another team: from then on, that team's
// members see and operate it, and the old team's no longer do.
func (s *Store) Move(ctx context.Context, deployment, team string) error {
	audit.Note(ctx, "team", team)
	row, err := s.q.MoveDeployment(ctx, db.MoveDeploymentParams{Team: team, Name: deployment})
	switch {
	case err != nil:
		return db.Classify(err)
	case !row.Found:
		return NoSuchTeam(team)
	case !row.Moved:
		return styrmin.Errorf(styrmin.ENOTFOUND, "There is no live deployment named %q.", deployment)
	}
	return nil
}
