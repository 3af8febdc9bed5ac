package web

import (
	"net/http"

	"github.com/labstack/echo/v4"

	"github.com/styrmin/styrmin"
	"github.com/styrmin/styrmin/auth"
	"github.com/styrmin/styrmin/handlers/httpx"
	"github.com/styrmin/styrmin/teams"
	"github.com/styrmin/styrmin/views"
)

// TeamList shows the teams the user sees (teams.Store.ListSeen) and, to
// admins, the form to make one.
func TeamList(store *teams.Store) echo.HandlerFunc {
	return func(c echo.Context) error {
		return renderTeams(c, store, http.StatusOK, views.NewTeamForm{})
	}
}

// TeamCreate makes the form's team and goes to its page; a refused name is
// said at the field, the form kept as typed.
func TeamCreate(store *teams.Store) echo.HandlerFunc {
	return func(c echo.Context) error {
		form := views.NewTeamForm{Name: c.FormValue("name")}
		if _, err := store.Create(c.Request().Context(), form.Name); err != nil {
			if !refusedInput(err) {
				return err
			}
			form.Error, form.FieldErrors = styrmin.ErrorMessage(err), styrmin.ErrorFields(err)
			return renderTeams(c, store, http.StatusUnprocessableEntity, form)
		}
		flash(c, views.FlashSuccess, "The team "+form.Name+" is made: add its members.")
		return redirect(c, views.TeamURL(form.Name))
	}
}

// renderTeams renders the teams page with form (empty, or with errors).
func renderTeams(c echo.Context, store *teams.Store, status int, form views.NewTeamForm) error {
	me := httpx.CurrentUser(c)
	seen, err := store.ListSeen(c.Request().Context(), *me)
	if err != nil {
		return err
	}
	rows := make([]views.TeamRow, len(seen))
	for i, t := range seen {
		rows[i] = views.TeamRow{Name: t.Name, Members: t.Members, Deployments: t.Deployments, Role: teamRoleName(t.Role)}
	}
	return render(c, status, views.TeamsPage(views.TeamsProps{Page: page(c, "Teams", views.NavTeams), Teams: rows, CanCreate: me.Role.AtLeast(auth.Admin), Form: form}))
}

// teamRoleName is a role in a team as the pages write it, "" for none.
func teamRoleName(r auth.Role) string {
	if !r.AtLeast(auth.ReadOnly) {
		return ""
	}
	return r.String()
}

// refusedInput reports whether err refuses what the user typed (invalid or
// taken), which a form shows at its fields rather than as an error page.
func refusedInput(err error) bool {
	code := styrmin.ErrorCode(err)
	return code == styrmin.EINVALID || code == styrmin.ECONFLICT
}
