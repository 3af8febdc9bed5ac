package handlers

import (
	"context"
	"net/http"
	"strconv"
	"strings"

	"github.com/labstack/echo/v4"

	"github.com/styrmin/styrmin"
	"github.com/styrmin/styrmin/auth"
	"github.com/styrmin/styrmin/deployment"
	"github.com/styrmin/styrmin/handlers/api"
	"github.com/styrmin/styrmin/handlers/httpx"
	"github.com/styrmin/styrmin/teams"
	"github.com/styrmin/styrmin/webhooks"
)

// teamScope finds the team a route's request is about, and says how that
// request is refused when the user may not know of it.
type teamScope struct {
	// roleOn is the user's role over the deployment the request names.
	roleOn func(s *teams.Store, ctx context.Context, a teams.Access, c echo.Context) (auth.Role, error)
	// hidden is the error of a request about a deployment the user may not
	// see: the very answer to one that does not exist, so names do not leak.
	hidden func(c echo.Context) error
	// where says where the role is needed, for a refusal.
	where string
	// actsAs has the request act with the role found, over its deployment.
	actsAs bool
}

// deploymentScope is a route about the deployment named by its :name.
var deploymentScope = &teamScope{
	roleOn: func(s *teams.Store, ctx context.Context, a teams.Access, c echo.Context) (auth.Role, error) {
		return s.RoleOnDeployment(ctx, a, c.Param("name"))
	},
	hidden: func(c echo.Context) error { return deployment.NoSuchDeployment(c.Param("name")) },
	where:  "in the deployment's team",
	actsAs: true,
}

// taskScope is a route about the task of its :id, and so its deployment.
var taskScope = &teamScope{
	roleOn: byID((*teams.Store).RoleOnTask),
	hidden: func(c echo.Context) error { return deployment.NoSuchTask(c.Param("id")) },
	where:  "in the deployment's team",
	actsAs: true,
}

// installScope is a route that makes a new deployment in a team the request
// names: the user needs the route's role in some team (the install's plan
// then checks the team named, deployment.Install's TeamsAllowed).
var installScope = &teamScope{
	roleOn: func(_ *teams.Store, _ context.Context, a teams.Access, _ echo.Context) (auth.Role, error) {
		return a.Highest(), nil
	},
	hidden: func(echo.Context) error {
		return styrmin.Errorf(styrmin.EFORBIDDEN, "You may deploy into no team: that needs the operator role in a team. Ask an admin.")
	},
	where: "in a team",
}

// teamPageScope is a route about the team named by its :name: its page and
// its members. The role that counts is the user's in that team (or their
// own, when higher), so a team's admins manage its members; to a user who
// is not in it, the team does not exist.
var teamPageScope = &teamScope{
	roleOn: func(s *teams.Store, ctx context.Context, a teams.Access, c echo.Context) (auth.Role, error) {
		return s.RoleOnTeam(ctx, a, c.Param("name"))
	},
	hidden: func(c echo.Context) error { return teams.NoSuchTeam(c.Param("name")) },
	where:  "in the team",
}

// byID is the roleOn of a scope about the thing of the route's :id, whose
// role roleOnID finds; over an :id that is no number, which nothing has,
// the user's own role.
func byID(roleOnID func(s *teams.Store, ctx context.Context, a teams.Access, id int64) (auth.Role, error)) func(*teams.Store, context.Context, teams.Access, echo.Context) (auth.Role, error) {
	return func(s *teams.Store, ctx context.Context, a teams.Access, c echo.Context) (auth.Role, error) {
		id, err := strconv.ParseInt(c.Param("id"), 10, 64)
		if err != nil {
			return a.User.Role, nil
		}
		return roleOnID(s, ctx, a, id)
	}
}

// webhookScope is a route about the webhook of its :id: the role that counts
// is the user's in its team (their own, over a global webhook), so a team's
// members reach its webhooks (the store then says what each may do), and to
// anyone else whose own role does not reach it, it does not exist.
var webhookScope = &teamScope{
	roleOn: byID((*teams.Store).RoleOnWebhook),
	hidden: func(c echo.Context) error {
		id, err := strconv.ParseInt(c.Param("id"), 10, 64)
		if err != nil {
			return styrmin.Errorf(styrmin.ENOTFOUND, "There is no webhook %q.", c.Param("id"))
		}
		return webhooks.NotFound(id)
	},
	where: "in the webhook's team",
}

// webhookCreateScope is the route that makes a webhook: the user needs the
// route's role in some team (the store then checks the team named).
var webhookCreateScope = &teamScope{
	roleOn: installScope.roleOn,
	hidden: func(echo.Context) error {
		return styrmin.Errorf(styrmin.EFORBIDDEN, "You manage no team's webhooks: that needs the admin role in a team. Ask an admin.")
	},
	where: "in a team",
}

// scopeOf returns the scope of a route of the permission table: the pages
// and operations under one deployment, the REST API's task by id, the
// installs, a team's page and members, and webhooks (new ones, and each by
// its id); nil for a route whose role is
// the user's own (moving a deployment, a team's policy and its deletion are
// the global admins').
func scopeOf(method, path string) *teamScope {
	if path == "/drivers/:name/deploy" || path == api.Prefix+"/deployments" {
		return installScope
	}
	under := func(prefix string) bool { return path == prefix || strings.HasPrefix(path, prefix+"/") }
	for _, prefix := range []string{"", api.Prefix} {
		switch {
		case path == prefix+"/deployments/:name/move":
			return nil
		case under(prefix + "/deployments/:name"):
			return deploymentScope
		case under(prefix + "/teams/:name/members"), path == prefix+"/teams/:name" && method == http.MethodGet:
			return teamPageScope
		}
	}
	if under(api.Prefix + "/tasks/:id") {
		return taskScope
	}
	for _, prefix := range []string{"", api.Prefix} {
		switch {
		case path == prefix+"/webhooks" && method == http.MethodPost:
			return webhookCreateScope
		case under(prefix + "/webhooks/:id"):
			return webhookScope
		}
	}
	return nil
}

// requireTeamRole refuses a request about a deployment unless the user's
// role over it, their own or their role in its team (package teams), is at
// least least (an install: their role in some team). A user who may not
// even read it is told it does not exist (404, not 403), in the very words
// said of a name nobody used.
func requireTeamRole(store *teams.Store, scope *teamScope, least auth.Role) echo.MiddlewareFunc {
	return func(next echo.HandlerFunc) echo.HandlerFunc {
		return func(c echo.Context) error {
			u := httpx.CurrentUser(c)
			if u == nil || u.Role.AtLeast(least) {
				return next(c) // the user's own role suffices in every team
			}
			if store == nil { // a server of no deployments (the primitives' tests)
				return styrmin.Errorf(styrmin.EFORBIDDEN, "This needs the %s role.", least)
			}
			ctx := c.Request().Context()
			access, err := store.AccessOf(ctx, *u)
			if err != nil {
				return err
			}
			// The handler finds the user's teams here (httpx.TeamAccess)
			// rather than reading them again: an install's Deployable.
			c.SetRequest(c.Request().WithContext(httpx.WithTeamAccess(ctx, access)))
			role, err := scope.roleOn(store, ctx, access, c)
			switch {
			case err != nil:
				return err
			case !role.AtLeast(auth.ReadOnly):
				return scope.hidden(c)
			case !role.AtLeast(least):
				return styrmin.Errorf(styrmin.EFORBIDDEN, "This needs the %s role %s; %s has the %s role.", least, scope.where, u.Username, role)
			}
			if scope.actsAs {
				// The request acts with the user's role over this
				// deployment: its page shows the buttons that role may press.
				over := *u
				over.Role = role
				httpx.ActAs(c, &over)
			}
			return next(c)
		}
	}
}
