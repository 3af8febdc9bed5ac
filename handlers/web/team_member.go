package web

import (
	"context"
	"net/http"

	"github.com/labstack/echo/v4"

	"github.com/styrmin/styrmin"
	"github.com/styrmin/styrmin/audit"
	"github.com/styrmin/styrmin/auth"
	"github.com/styrmin/styrmin/teams"
	"github.com/styrmin/styrmin/views"
)

// userFinder finds a user by name (auth.Users).
type userFinder interface {
	GetByUsername(ctx context.Context, name string) (auth.User, error)
}

var _ userFinder = (*auth.Users)(nil)

// TeamMemberSet makes the form's user a member of the team with the form's
// role, or changes their role there. The permission table lets in admins
// and the team's admins; a refusal is said at the form's fields.
func TeamMemberSet(store *teams.Store, svc deploymentReader, users userFinder) echo.HandlerFunc {
	return func(c echo.Context) error {
		ctx, team := c.Request().Context(), c.Param("name")
		form := views.TeamMemberForm{Username: c.FormValue("username"), Role: c.FormValue("role")}
		audit.Note(ctx, "user", form.Username)
		u, err := users.GetByUsername(ctx, form.Username)
		if styrmin.ErrorCode(err) == styrmin.ENOTFOUND {
			err = &styrmin.Error{Code: styrmin.EINVALID, Message: styrmin.ErrorMessage(err), Fields: map[string]string{"username": "There is no user of that name."}}
		}
		if err == nil {
			err = store.SetMember(ctx, team, u.ID, teamRoleOf(form.Role))
		}
		if err != nil {
			if !refusedInput(err) {
				return err
			}
			form.Error, form.FieldErrors = styrmin.ErrorMessage(err), styrmin.ErrorFields(err)
			return renderTeam(c, store, svc, http.StatusUnprocessableEntity, teamForms{member: form})
		}
		return teamChanged(c, store, svc, u.Username+" is "+form.Role+" in the team "+team+".")
	}
}

// TeamMemberRemove takes the user of the route's :username out of the team.
func TeamMemberRemove(store *teams.Store, svc deploymentReader, users userFinder) echo.HandlerFunc {
	return func(c echo.Context) error {
		ctx, team := c.Request().Context(), c.Param("name")
		audit.Note(ctx, "user", c.Param("username"))
		u, err := users.GetByUsername(ctx, c.Param("username"))
		if err != nil {
			return err
		}
		if err := store.RemoveMember(ctx, team, u.ID); err != nil {
			return err
		}
		return teamChanged(c, store, svc, u.Username+" is no longer a member of the team "+team+".")
	}
}

// teamChanged answers a change of a team's page: the page itself with the
// message for htmx (no reload), else a redirect to it.
func teamChanged(c echo.Context, store *teams.Store, svc deploymentReader, message string) error {
	flash(c, views.FlashSuccess, message)
	if isHTMX(c) {
		return renderTeam(c, store, svc, http.StatusOK, teamForms{})
	}
	return redirect(c, views.TeamURL(c.Param("name")))
}

// teamRoleOf reads a role in a team from a form: one it is not is
// auth.Anonymous, which the store refuses at the field role.
func teamRoleOf(name string) auth.Role {
	role, err := auth.ParseRole(name)
	if err != nil {
		return auth.Anonymous
	}
	return role
}
