package api

import (
	"context"

	oapi "github.com/styrmin/styrmin/api"
	"github.com/styrmin/styrmin/audit"
	"github.com/styrmin/styrmin/auth"
	"github.com/styrmin/styrmin/handlers/httpx"
	"github.com/styrmin/styrmin/teams"
)

// The API's operations on teams: the same store as the teams pages. Who may
// read a team, and change its members (an admin, or an admin of that team),
// is the permission table's (handlers.requireTeamRole).

// ListTeams lists the teams the caller sees (teams.Store.ListSeen).
func (s *Server) ListTeams(ctx context.Context, _ oapi.ListTeamsRequestObject) (oapi.ListTeamsResponseObject, error) {
	seen, err := s.Teams.ListSeen(ctx, httpx.APIUser(ctx))
	if err != nil {
		return nil, err
	}
	out := oapi.ListTeams200JSONResponse{Items: make([]oapi.Team, len(seen))}
	for i, t := range seen {
		out.Items[i] = oapi.Team{Name: t.Name, Members: t.Members, Deployments: t.Deployments, CreatedAt: t.CreatedAt, Role: apiTeamRoleOf(t.Role)}
	}
	return out, nil
}

func (s *Server) CreateTeam(ctx context.Context, req oapi.CreateTeamRequestObject) (oapi.CreateTeamResponseObject, error) {
	audit.NameTarget(ctx, req.Body.Name, nil)
	if _, err := s.Teams.Create(ctx, req.Body.Name); err != nil {
		return nil, err
	}
	d, err := s.teamDetail(ctx, req.Body.Name)
	return oapi.CreateTeam201JSONResponse(d), err
}

func (s *Server) GetTeam(ctx context.Context, req oapi.GetTeamRequestObject) (oapi.GetTeamResponseObject, error) {
	d, err := s.teamDetail(ctx, req.Name)
	return oapi.GetTeam200JSONResponse(d), err
}

func (s *Server) DeleteTeam(ctx context.Context, req oapi.DeleteTeamRequestObject) (oapi.DeleteTeamResponseObject, error) {
	if err := s.Teams.Delete(ctx, req.Name); err != nil {
		return nil, err
	}
	return oapi.DeleteTeam204Response{}, nil
}

// SetTeamPolicy replaces a team's policy; the store checks its rules.
func (s *Server) SetTeamPolicy(ctx context.Context, req oapi.SetTeamPolicyRequestObject) (oapi.SetTeamPolicyResponseObject, error) {
	b := req.Body
	p := teams.Policy{MaxDeployments: b.MaxDeployments, MaxCPUMillis: b.MaxCpuMillis, MaxMemoryBytes: b.MaxMemoryBytes}
	if b.Namespaces != nil {
		p.Namespaces = append([]string{}, *b.Namespaces...)
	}
	if b.Drivers != nil {
		p.Drivers = append([]string{}, *b.Drivers...)
	}
	if err := s.Teams.SetPolicy(ctx, req.Name, p); err != nil {
		return nil, err
	}
	d, err := s.teamDetail(ctx, req.Name)
	return oapi.SetTeamPolicy200JSONResponse(d), err
}

func (s *Server) SetTeamMember(ctx context.Context, req oapi.SetTeamMemberRequestObject) (oapi.SetTeamMemberResponseObject, error) {
	audit.Note(ctx, "user", req.Username)
	u, err := s.userNamed(ctx, req.Username)
	if err != nil {
		return nil, err
	}
	if err := s.Teams.SetMember(ctx, req.Name, u.ID, teamRoleOf(req.Body.Role)); err != nil {
		return nil, err
	}
	d, err := s.teamDetail(ctx, req.Name)
	return oapi.SetTeamMember200JSONResponse(d), err
}

func (s *Server) RemoveTeamMember(ctx context.Context, req oapi.RemoveTeamMemberRequestObject) (oapi.RemoveTeamMemberResponseObject, error) {
	audit.Note(ctx, "user", req.Username)
	u, err := s.userNamed(ctx, req.Username)
	if err != nil {
		return nil, err
	}
	if err := s.Teams.RemoveMember(ctx, req.Name, u.ID); err != nil {
		return nil, err
	}
	return oapi.RemoveTeamMember204Response{}, nil
}

// MoveDeployment puts a live deployment in another team (teams.Store.Move).
func (s *Server) MoveDeployment(ctx context.Context, req oapi.MoveDeploymentRequestObject) (oapi.MoveDeploymentResponseObject, error) {
	if err := s.Teams.Move(ctx, req.Name, req.Body.Team); err != nil {
		return nil, err
	}
	d, err := s.Deployments.Get(ctx, req.Name)
	if err != nil {
		return nil, err
	}
	d.Team = req.Body.Team
	return oapi.MoveDeployment200JSONResponse(apiDeploymentSummaryOf(d, nil)), nil
}

// teamDetail is the team of that name with its members and policy, as the
// API answers it.
func (s *Server) teamDetail(ctx context.Context, name string) (oapi.TeamDetail, error) {
	d, err := s.Teams.Detail(ctx, name)
	if err != nil {
		return oapi.TeamDetail{}, err
	}
	out := oapi.TeamDetail{Name: d.Name, Members: d.Team.Members, Deployments: d.Deployments, CreatedAt: d.CreatedAt, MemberList: make([]oapi.TeamMember, len(d.Members)),
		Policy: oapi.TeamPolicy{MaxDeployments: d.Policy.MaxDeployments, MaxCpuMillis: d.Policy.MaxCPUMillis, MaxMemoryBytes: d.Policy.MaxMemoryBytes}}
	if d.Policy.Namespaces != nil {
		out.Policy.Namespaces = &d.Policy.Namespaces
	}
	if d.Policy.Drivers != nil {
		out.Policy.Drivers = &d.Policy.Drivers
	}
	me := httpx.APIUser(ctx)
	for i, m := range d.Members {
		out.MemberList[i] = oapi.TeamMember{Username: m.Username, Role: oapi.TeamRole(m.Role.String()), UserRole: oapi.Role(m.UserRole.String())}
		if m.UserID == me.ID {
			out.Role = apiTeamRoleOf(m.Role)
		}
	}
	return out, nil
}

// apiTeamRoleOf is a role in a team as the API spells it; nil for none.
func apiTeamRoleOf(r auth.Role) *oapi.TeamRole {
	if !r.AtLeast(auth.ReadOnly) {
		return nil
	}
	role := oapi.TeamRole(r.String())
	return &role
}

// teamRoleOf reads a role in a team: one it is not (the document allows
// none) is auth.Anonymous, which the store refuses at the field role.
func teamRoleOf(r oapi.TeamRole) auth.Role {
	role, err := auth.ParseRole(string(r))
	if err != nil {
		return auth.Anonymous
	}
	return role
}
