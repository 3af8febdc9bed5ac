package web_test

import (
	"context"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"testing"

	"github.com/styrmin/styrmin/handlers/handlerstest"

	"github.com/stretchr/testify/require"

	"github.com/styrmin/styrmin/auth"
)

func userURL(id int64, action string) string {
	return "/users/" + strconv.FormatInt(id, 10) + "/" + action
}

func TestUsersPageListsUsers(t *testing.T) {
	t.Parallel()
	a := handlerstest.Setup(t)
	admin, _ := a.As(t, "root", auth.Admin)
	_, _ = a.As(t, "bob", auth.ReadOnly)

	rec := a.Request(admin, http.MethodGet, "/users", nil)
	require.Equal(t, http.StatusOK, rec.Code)
	doc := handlerstest.Parse(t, rec)
	require.Equal(t, "Users", handlerstest.Text(doc.Find(`nav [aria-current="page"]`)))
	require.Equal(t, "read-only", handlerstest.Text(doc.Find(`[data-testid="user-bob"] [data-testid="role"]`)))
	require.Equal(t, "active", handlerstest.Text(doc.Find(`[data-testid="user-bob"] [data-testid="status"]`)))
	require.Contains(t, handlerstest.Text(doc.Find(`[data-testid="user-root"]`)), "(you)")
}

func TestCreateUser(t *testing.T) {
	t.Parallel()
	a := handlerstest.Setup(t)
	admin, _ := a.As(t, "root", auth.Admin)

	rec := a.Request(admin, http.MethodPost, "/users", url.Values{"username": {"Carol"}, "role": {"operator"}, "password": {"carol's password"}})
	require.Equal(t, []string{"User carol created with the operator role."}, a.Flashes(t, admin, rec))
	_, err := a.Users.SignIn(context.Background(), "carol", "carol's password", "192.0.2.1")
	require.NoError(t, err)

	rec = a.Request(admin, http.MethodPost, "/users", url.Values{"username": {"dave"}, "role": {"read-only"}})
	flashes := a.Flashes(t, admin, rec)
	require.Len(t, flashes, 1)
	password := strings.TrimSuffix(strings.Split(flashes[0], "Their password is ")[1], " — copy it now, it is not shown again.")
	_, err = a.Users.SignIn(context.Background(), "dave", password, "192.0.2.1")
	require.NoError(t, err, "the generated password shown once works")
}

func TestCreateUserShowsErrorsNextToTheFields(t *testing.T) {
	t.Parallel()
	a := handlerstest.Setup(t)
	admin, _ := a.As(t, "root", auth.Admin)
	tests := []struct {
		name  string
		form  url.Values
		field string
		want  string
	}{
		{"taken name", url.Values{"username": {"root"}, "role": {"admin"}, "password": {handlerstest.TestPassword}}, "username", "This name is taken."},
		{"bad name", url.Values{"username": {"a b"}, "role": {"admin"}, "password": {handlerstest.TestPassword}}, "username", "1 to 63 lower-case letters"},
		{"short password", url.Values{"username": {"eve"}, "role": {"admin"}, "password": {"short"}}, "password", "At least 10 characters."},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			rec := a.Request(admin, http.MethodPost, "/users", tt.form)
			require.Equal(t, http.StatusUnprocessableEntity, rec.Code)
			doc := handlerstest.Parse(t, rec)
			require.Contains(t, handlerstest.Text(doc.Find(`[data-testid="error-`+tt.field+`"]`)), tt.want)
			require.NotEmpty(t, handlerstest.Text(doc.Find(`[data-testid="form-error"]`)))
			require.Equal(t, tt.form.Get("username"), doc.Find(`#new-username`).AttrOr("value", ""), "the form keeps what was typed")
			require.Len(t, doc.Find(`[aria-invalid="true"]`).Nodes, 1, "only the wrong field is marked")
			require.Equal(t, "true", doc.Find(`[name="`+tt.field+`"]`).Last().AttrOr("aria-invalid", ""))
		})
	}
	rec := a.Request(admin, http.MethodPost, "/users", url.Values{"username": {"eve"}, "role": {"root"}, "password": {handlerstest.TestPassword}})
	require.Equal(t, http.StatusUnprocessableEntity, rec.Code)
	require.Contains(t, handlerstest.Text(handlerstest.Parse(t, rec).Find(`[data-testid="form-error"]`)), `unknown role "root"`)
}

func TestChangeRoleDisableEnableAndResetPassword(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	a := handlerstest.Setup(t)
	admin, _ := a.As(t, "root", auth.Admin)
	_, bob := a.As(t, "bob", auth.ReadOnly)

	rec := a.Request(admin, http.MethodPost, userURL(bob.ID, "role"), url.Values{"role": {"operator"}})
	require.Equal(t, []string{"bob now has the operator role."}, a.Flashes(t, admin, rec))

	rec = a.Request(admin, http.MethodPost, userURL(bob.ID, "disable"), url.Values{})
	require.Equal(t, []string{"bob is disabled."}, a.Flashes(t, admin, rec))
	_, err := a.Users.SignIn(ctx, "bob", handlerstest.TestPassword, "192.0.2.1")
	require.Error(t, err)

	rec = a.Request(admin, http.MethodPost, userURL(bob.ID, "enable"), url.Values{})
	require.Equal(t, []string{"bob is enabled."}, a.Flashes(t, admin, rec))

	rec = a.Request(admin, http.MethodPost, userURL(bob.ID, "password"), url.Values{"password": {"bob's new password"}})
	require.Equal(t, []string{"The password of bob is changed. Their sessions have ended."}, a.Flashes(t, admin, rec))
	u, err := a.Users.SignIn(ctx, "bob", "bob's new password", "192.0.2.1")
	require.NoError(t, err)
	require.Equal(t, auth.Operator, u.Role)

	rec = a.Request(admin, http.MethodPost, userURL(bob.ID, "password"), url.Values{"password": {""}})
	flashes := a.Flashes(t, admin, rec)
	require.Len(t, flashes, 1)
	require.Contains(t, flashes[0], "copy it now")
}

func TestUserChangesThatAreRefusedShowAMessage(t *testing.T) {
	t.Parallel()
	a := handlerstest.Setup(t)
	admin, root := a.As(t, "root", auth.Admin)

	rec := a.Request(admin, http.MethodPost, userURL(root.ID, "disable"), url.Values{})
	require.Equal(t, []string{"root is the last enabled admin; make another user admin first."}, a.Flashes(t, admin, rec))

	rec = a.Request(admin, http.MethodPost, userURL(root.ID, "role"), url.Values{"role": {"superuser"}})
	require.Equal(t, []string{`unknown role "superuser": use admin, operator, read-only or member`}, a.Flashes(t, admin, rec))

	rec = a.Request(admin, http.MethodPost, userURL(root.ID, "password"), url.Values{"password": {"short"}})
	require.Equal(t, []string{"The password must have at least 10 characters."}, a.Flashes(t, admin, rec))

	rec = a.Request(admin, http.MethodPost, "/users/nobody/role", url.Values{"role": {"admin"}})
	require.Equal(t, http.StatusNotFound, rec.Code)
}

func TestUsersPageIsForAdminsOnly(t *testing.T) {
	t.Parallel()
	a := handlerstest.Setup(t)
	operator, _ := a.As(t, "op", auth.Operator)
	rec := a.Request(operator, http.MethodGet, "/users", nil)
	require.Equal(t, http.StatusForbidden, rec.Code)
	doc := handlerstest.Parse(t, rec)
	require.Equal(t, "403", handlerstest.Text(doc.Find(`[data-testid="error-status"]`)))
	require.Equal(t, "This needs the admin role; you are signed in as op with the operator role.", handlerstest.Text(doc.Find(`[data-testid="error-message"]`)))
	require.Empty(t, doc.Find(`nav a[href="/users"]`).Nodes, "operators see no Users link")
}

func TestUserPasswordResetRevokesTheUsersAPITokensUnlessUnchecked(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	a := handlerstest.Setup(t)
	admin, _ := a.As(t, "root", auth.Admin)
	_, bob := a.As(t, "bob", auth.Operator)
	token, err := a.Deps.APITokens.Create(ctx, auth.Credential{User: bob}, "script", nil)
	require.NoError(t, err)

	page := handlerstest.Parse(t, a.Request(admin, http.MethodGet, "/users", nil))
	box := page.Find(`[data-testid="revoke-api-tokens"]`)
	require.Equal(t, 2, box.Length(), "a box on every user's reset form")
	require.True(t, box.Is("[checked]"), "checked by default")

	rec := a.Request(admin, http.MethodPost, userURL(bob.ID, "password"), url.Values{"password": {"bob's new password"}})
	require.Equal(t, []string{"The password of bob is changed. Their sessions have ended."}, a.Flashes(t, admin, rec))
	a.RequireTokenWorks(t, token.Secret, bob, "the box unchecked keeps the tokens")

	rec = a.Request(admin, http.MethodPost, userURL(bob.ID, "password"), url.Values{"password": {"bob's newer password"}, "revoke_api_tokens": {"on"}})
	require.Equal(t, []string{"The password of bob is changed. Their sessions have ended and their API tokens are revoked."}, a.Flashes(t, admin, rec))
	a.RequireTokenRefused(t, token.Secret, "the box checked revokes them")
}
