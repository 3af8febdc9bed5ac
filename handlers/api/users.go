package api

import (
	"context"
	"fmt"

	"github.com/styrmin/styrmin"
	oapi "github.com/styrmin/styrmin/api"
	"github.com/styrmin/styrmin/auth"
	"github.com/styrmin/styrmin/handlers/httpx"
)

// The API's operations on users and their tokens: the same stores and
// checks as the users and API tokens pages.

// GetMe is the caller and the teams their token acts in (teams.Store.ActingIn).
func (s *Server) GetMe(ctx context.Context, _ oapi.GetMeRequestObject) (oapi.GetMeResponseObject, error) {
	u := httpx.APIUser(ctx)
	only, memberships, err := s.Teams.ActingIn(ctx, u)
	if err != nil {
		return nil, err
	}
	v := apiUserOf(u)
	me := oapi.Me{Id: v.Id, Username: v.Username, Role: v.Role, Disabled: v.Disabled, CreatedAt: v.CreatedAt, Source: oapi.MeSource(v.Source),
		Team: nonEmpty(only), Teams: make([]oapi.Membership, len(memberships))}
	for i, m := range memberships {
		me.Teams[i] = oapi.Membership{Team: m.Team, Role: oapi.TeamRole(m.Role.String())}
	}
	return oapi.GetMe200JSONResponse(me), nil
}

func (s *Server) ListUsers(ctx context.Context, _ oapi.ListUsersRequestObject) (oapi.ListUsersResponseObject, error) {
	users, err := s.Users.List(ctx)
	if err != nil {
		return nil, err
	}
	out := oapi.ListUsers200JSONResponse{Items: make([]oapi.User, len(users))}
	for i, u := range users {
		out.Items[i] = apiUserOf(u)
	}
	return out, nil
}

func (s *Server) CreateUser(ctx context.Context, req oapi.CreateUserRequestObject) (oapi.CreateUserResponseObject, error) {
	role, err := roleOf(req.Body.Role)
	if err != nil {
		return nil, err
	}
	u, err := s.Users.Create(ctx, auth.NewUser{Username: req.Body.Username, Password: req.Body.Password, Role: role})
	if err != nil {
		return nil, err
	}
	return oapi.CreateUser201JSONResponse(apiUserOf(u)), nil
}

// UpdateUser applies each change the request names, in the order role,
// disabled, password; the users page's rules apply (the last admin stays).
func (s *Server) UpdateUser(ctx context.Context, req oapi.UpdateUserRequestObject) (oapi.UpdateUserResponseObject, error) {
	change := req.Body
	if change.Role == nil && change.Disabled == nil && change.Password == nil {
		return nil, styrmin.Errorf(styrmin.EINVALID, "Name a change: role, disabled or password.")
	}
	var u auth.User
	var err error
	if change.Role != nil {
		role, rerr := roleOf(*change.Role)
		if rerr != nil {
			return nil, rerr
		}
		if u, err = s.Users.SetRole(ctx, req.Id, role); err != nil {
			return nil, err
		}
	}
	if change.Disabled != nil {
		if u, err = s.Users.SetDisabled(ctx, req.Id, *change.Disabled); err != nil {
			return nil, err
		}
	}
	if change.Password != nil {
		tokens := auth.APITokensOnReset(change.RevokeApiTokens == nil || *change.RevokeApiTokens)
		if u, err = s.Users.SetPassword(ctx, req.Id, *change.Password, tokens); err != nil {
			return nil, err
		}
	}
	return oapi.UpdateUser200JSONResponse(apiUserOf(u)), nil
}

// ListTokens lists the caller's tokens, or for an admin naming a user, theirs.
func (s *Server) ListTokens(ctx context.Context, req oapi.ListTokensRequestObject) (oapi.ListTokensResponseObject, error) {
	owner := httpx.APIUser(ctx)
	if name := req.Params.User; name != nil && *name != owner.Username {
		if !owner.Role.AtLeast(auth.Admin) {
			return nil, styrmin.Errorf(styrmin.EFORBIDDEN, "Only admins list other users' tokens.")
		}
		u, err := s.userNamed(ctx, *name)
		if err != nil {
			return nil, err
		}
		owner = u
	}
	tokens, err := s.APITokens.List(ctx, owner)
	if err != nil {
		return nil, err
	}
	out := oapi.ListTokens200JSONResponse{Items: make([]oapi.APIToken, len(tokens))}
	for i, t := range tokens {
		out.Items[i] = apiTokenOf(t)
	}
	return out, nil
}

func (s *Server) CreateToken(ctx context.Context, req oapi.CreateTokenRequestObject) (oapi.CreateTokenResponseObject, error) {
	t, err := s.APITokens.CreateInTeam(ctx, httpx.APICredential(ctx), req.Body.Name, req.Body.ExpiresAt, optional(req.Body.Team))
	if err != nil {
		return nil, err
	}
	return oapi.CreateToken201JSONResponse(createdTokenOf(t)), nil
}

// createdTokenOf is a new token with its secret, as the API answers it once.
func createdTokenOf(t auth.CreatedAPIToken) oapi.CreatedAPIToken {
	v := apiTokenOf(t.APIToken)
	return oapi.CreatedAPIToken{Id: v.Id, Name: v.Name, Username: v.Username, CreatedAt: v.CreatedAt, ExpiresAt: v.ExpiresAt, Team: v.Team, Token: t.Secret}
}

func (s *Server) RevokeToken(ctx context.Context, req oapi.RevokeTokenRequestObject) (oapi.RevokeTokenResponseObject, error) {
	if err := s.APITokens.Revoke(ctx, httpx.APIUser(ctx), req.Id); err != nil {
		return nil, err
	}
	return oapi.RevokeToken204Response{}, nil
}

// userNamed finds a user by name among all users.
func (s *Server) userNamed(ctx context.Context, name string) (auth.User, error) {
	users, err := s.Users.List(ctx)
	if err != nil {
		return auth.User{}, err
	}
	name = auth.NormalizeUsername(name)
	for _, u := range users {
		if u.Username == name {
			return u, nil
		}
	}
	return auth.User{}, styrmin.Errorf(styrmin.ENOTFOUND, "There is no user named %q.", name)
}

func roleOf(r oapi.Role) (auth.Role, error) {
	role, err := auth.ParseRole(string(r))
	if err != nil {
		return 0, &styrmin.Error{Code: styrmin.EINVALID, Message: fmt.Sprintf("Unknown role %q: use read-only, operator or admin.", r), Fields: map[string]string{"role": "read-only, operator or admin"}}
	}
	return role, nil
}

func apiUserOf(u auth.User) oapi.User {
	return oapi.User{Id: u.ID, Username: u.Username, Role: oapi.Role(u.Role.String()), Disabled: u.Disabled, CreatedAt: u.CreatedAt, Source: oapi.UserSource(u.Source())}
}

func apiTokenOf(t auth.APIToken) oapi.APIToken {
	return oapi.APIToken{Id: t.ID, Name: t.Name, Username: t.Username, CreatedAt: t.CreatedAt, ExpiresAt: t.ExpiresAt, LastUsedAt: t.LastUsedAt, Team: nonEmpty(t.Team)}
}
