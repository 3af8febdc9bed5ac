package web

import (
	"fmt"
	"net/http"

	"github.com/labstack/echo/v4"

	"github.com/styrmin/styrmin"
	"github.com/styrmin/styrmin/auth"
	"github.com/styrmin/styrmin/views"
)

// UserCreate adds a user; a blank password gets a generated one, shown once.
func UserCreate(users userAdmin) echo.HandlerFunc {
	return func(c echo.Context) error {
		form := views.NewUserForm{Username: c.FormValue("username"), Role: c.FormValue("role")}
		password, generated := auth.PasswordOrGenerated(c.FormValue("password"))
		role, err := auth.ParseRole(form.Role)
		if err == nil {
			_, err = users.Create(c.Request().Context(), auth.NewUser{Username: form.Username, Password: password, Role: role})
		}
		switch code := styrmin.ErrorCode(err); code {
		case "":
		case styrmin.EINVALID, styrmin.ECONFLICT:
			form.Error, form.FieldErrors = styrmin.ErrorMessage(err), styrmin.ErrorFields(err)
			return renderUsers(c, users, http.StatusUnprocessableEntity, form)
		default:
			return err
		}
		msg := fmt.Sprintf("User %s created with the %s role.", auth.NormalizeUsername(form.Username), role)
		if generated {
			msg += fmt.Sprintf(" Their password is %s — copy it now, it is not shown again.", password)
		}
		flash(c, views.FlashSuccess, msg)
		return redirect(c, "/users")
	}
}
