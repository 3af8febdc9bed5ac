package web

import (
	"context"
	"net/http"

	"github.com/labstack/echo/v4"

	"github.com/styrmin/styrmin/auth"
	"github.com/styrmin/styrmin/handlers/httpx"
	"github.com/styrmin/styrmin/views"
)

// userAdmin is what the users page needs.
type userAdmin interface {
	Get(ctx context.Context, id int64) (auth.User, error)
	List(ctx context.Context) ([]auth.User, error)
	Create(ctx context.Context, nu auth.NewUser) (auth.User, error)
	SetRole(ctx context.Context, id int64, role auth.Role) (auth.User, error)
	SetDisabled(ctx context.Context, id int64, disabled bool) (auth.User, error)
	SetPassword(ctx context.Context, id int64, password string, tokens auth.APITokensOnReset) (auth.User, error)
}

// UserList shows every user and the form to add one.
func UserList(users userAdmin) echo.HandlerFunc {
	return func(c echo.Context) error {
		return renderUsers(c, users, http.StatusOK, views.NewUserForm{})
	}
}

// renderUsers renders the users page with form (empty, or with errors).
func renderUsers(c echo.Context, users userAdmin, status int, form views.NewUserForm) error {
	list, err := users.List(c.Request().Context())
	if err != nil {
		return err
	}
	me := httpx.CurrentUser(c)
	rows := make([]views.UserRow, 0, len(list))
	for _, u := range list {
		rows = append(rows, views.UserRow{
			ID: u.ID, Username: u.Username, Role: u.Role.String(), Disabled: u.Disabled,
			CreatedAt: u.CreatedAt, Self: me != nil && me.ID == u.ID, SSO: u.Source() == "oidc",
		})
	}
	return render(c, status, views.UsersPage(views.UsersProps{Page: page(c, "Users", views.NavUsers), Users: rows, Form: form}))
}

// UserStore is what the sign-in, account and users pages need from auth.Users.
type UserStore interface {
	signer
	identitySigner
	userAdmin
	passwordChanger
	userFinder
}

var _ UserStore = (*auth.Users)(nil)
