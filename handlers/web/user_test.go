package handlers

import (
	"context"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strconv"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/styrmin/styrmin/auth"
)

func userURL(id int64, action string) string {
	return "/users/" + strconv.FormatInt(id, 10) + "/" + action
}

// flashes follows a redirect and returns the flash messages of the next page.
func (a *app) flashes(t *testing.T, v visitor, rec *httptest.ResponseRecorder) []string {
	t.Helper()
	require.Equal(t, http.StatusSeeOther, rec.Code, rec.Body.String())
	page := a.request(v.follow(rec), http.MethodGet, rec.Header().Get("Location"), nil)
	require.Equal(t, http.StatusOK, page.Code)
	return texts(parse(t, page).Find(`#flash .flash`))
}

func TestUsersPageListsUsers(t *testing.T) {
	t.Parallel()
	a := setup(t)
	admin, _ := a.as(t, "root", auth.Admin)
	_, _ = a.as(t, "bob", auth.ReadOnly)

	rec := a.request(admin, http.MethodGet, "/users", nil)
	require.Equal(t, http.StatusOK, rec.Code)
	doc := parse(t, rec)
	require.Equal(t, "Users", text(doc.Find(`nav [aria-current="page"]`)))
	require.Equal(t, "read-only", text(doc.Find(`[data-testid="user-bob"] [data-testid="role"]`)))
	require.Equal(t, "active", text(doc.Find(`[data-testid="user-bob"] [data-testid="status"]`)))
	require.Contains(t, text(doc.Find(`[data-testid="user-root"]`)), "(you)")
}

func TestCreateUser(t *testing.T) {
	t.Parallel()
	a := setup(t)
	admin, _ := a.as(t, "root", auth.Admin)

	rec := a.request(admin, http.MethodPost, "/users", url.Values{"username": {"Carol"}, "role": {"operator"}, "password": {"carol's password"}})
	require.Equal(t, []string{"User carol created with the operator role."}, a.flashes(t, admin, rec))
	_, err := a.users.SignIn(context.Background(), "carol", "carol's password", "192.0.2.1")
	require.NoError(t, err)

	rec = a.request(admin, http.MethodPost, "/users", url.Values{"username": {"dave"}, "role": {"read-only"}})
	flashes := a.flashes(t, admin, rec)
	require.Len(t, flashes, 1)
	password := strings.TrimSuffix(strings.Split(flashes[0], "Their password is ")[1], " — copy it now, it is not shown again.")
	_, err = a.users.SignIn(context.Background(), "dave", password, "192.0.2.1")
	require.NoError(t, err, "the generated password shown once works")
}

func TestCreateUserShowsErrorsNextToTheFields(t *testing.T) {
	t.Parallel()
	a := setup(t)
	admin, _ := a.as(t, "root", auth.Admin)
	tests := []struct {
		name  string
		form  url.Values
		field string
		want  string
	}{
		{"taken name", url.Values{"username": {"root"}, "role": {"admin"}, "password": {testPassword}}, "username", "This name is taken."},
		{"bad name", url.Values{"username": {"a b"}, "role": {"admin"}, "password": {testPassword}}, "username", "1 to 63 lower-case letters"},
		{"short password", url.Values{"username": {"eve"}, "role": {"admin"}, "password": {"short"}}, "password", "At least 10 characters."},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			rec := a.request(admin, http.MethodPost, "/users", tt.form)
			require.Equal(t, http.StatusUnprocessableEntity, rec.Code)
			doc := parse(t, rec)
			require.Contains(t, text(doc.Find(`[data-testid="error-`+tt.field+`"]`)), tt.want)
			require.NotEmpty(t, text(doc.Find(`[data-testid="form-error"]`)))
			require.Equal(t, tt.form.Get("username"), doc.Find(`#new-username`).AttrOr("value", ""), "the form keeps what was typed")
			require.Len(t, doc.Find(`[aria-invalid="true"]`).Nodes, 1, "only the wrong field is marked")
			require.Equal(t, "true", doc.Find(`[name="`+tt.field+`"]`).Last().AttrOr("aria-invalid", ""))
		})
	}
	rec := a.request(admin, http.MethodPost, "/users", url.Values{"username": {"eve"}, "role": {"root"}, "password": {testPassword}})
	require.Equal(t, http.StatusUnprocessableEntity, rec.Code)
	require.Contains(t, text(parse(t, rec).Find(`[data-testid="form-error"]`)), `unknown role "root"`)
}

func TestChangeRoleDisableEnableAndResetPassword(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	a := setup(t)
	admin, _ := a.as(t, "root", auth.Admin)
	_, bob := a.as(t, "bob", auth.ReadOnly)

	rec := a.request(admin, http.MethodPost, userURL(bob.ID, "role"), url.Values{"role": {"operator"}})
	require.Equal(t, []string{"bob now has the operator role."}, a.flashes(t, admin, rec))

	rec = a.request(admin, http.MethodPost, userURL(bob.ID, "disable"), url.Values{})
	require.Equal(t, []string{"bob is disabled."}, a.flashes(t, admin, rec))
	_, err := a.users.SignIn(ctx, "bob", testPassword, "192.0.2.1")
	require.Error(t, err)

	rec = a.request(admin, http.MethodPost, userURL(bob.ID, "enable"), url.Values{})
	require.Equal(t, []string{"bob is enabled."}, a.flashes(t, admin, rec))

	rec = a.request(admin, http.MethodPost, userURL(bob.ID, "password"), url.Values{"password": {"bob's new password"}})
	require.Equal(t, []string{"The password of bob is changed; their sessions have ended."}, a.flashes(t, admin, rec))
	u, err := a.users.SignIn(ctx, "bob", "bob's new password", "192.0.2.1")
	require.NoError(t, err)
	require.Equal(t, auth.Operator, u.Role)

	rec = a.request(admin, http.MethodPost, userURL(bob.ID, "password"), url.Values{"password": {""}})
	flashes := a.flashes(t, admin, rec)
	require.Len(t, flashes, 1)
	require.Contains(t, flashes[0], "copy it now")
}

func TestUserChangesThatAreRefusedShowAMessage(t *testing.T) {
	t.Parallel()
	a := setup(t)
	admin, root := a.as(t, "root", auth.Admin)

	rec := a.request(admin, http.MethodPost, userURL(root.ID, "disable"), url.Values{})
	require.Equal(t, []string{"root is the last enabled admin; make another user admin first."}, a.flashes(t, admin, rec))

	rec = a.request(admin, http.MethodPost, userURL(root.ID, "role"), url.Values{"role": {"superuser"}})
	require.Equal(t, []string{`unknown role "superuser": use admin, operator or read-only`}, a.flashes(t, admin, rec))

	rec = a.request(admin, http.MethodPost, userURL(root.ID, "password"), url.Values{"password": {"short"}})
	require.Equal(t, []string{"The password must have at least 10 characters."}, a.flashes(t, admin, rec))

	rec = a.request(admin, http.MethodPost, "/users/nobody/role", url.Values{"role": {"admin"}})
	require.Equal(t, http.StatusNotFound, rec.Code)
}

func TestUsersPageIsForAdminsOnly(t *testing.T) {
	t.Parallel()
	a := setup(t)
	operator, _ := a.as(t, "op", auth.Operator)
	rec := a.request(operator, http.MethodGet, "/users", nil)
	require.Equal(t, http.StatusForbidden, rec.Code)
	doc := parse(t, rec)
	require.Equal(t, "403", text(doc.Find(`[data-testid="error-status"]`)))
	require.Equal(t, "This needs the admin role; you are signed in as op with the operator role.", text(doc.Find(`[data-testid="error-message"]`)))
	require.Empty(t, doc.Find(`nav a[href="/users"]`).Nodes, "operators see no Users link")
}
