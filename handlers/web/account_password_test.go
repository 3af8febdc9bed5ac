package web_test

import (
	"context"
	"net/http"
	"net/url"
	"testing"

	"github.com/styrmin/styrmin/handlers/handlerstest"

	"github.com/stretchr/testify/require"

	"github.com/styrmin/styrmin/auth"
)

func TestUsersChangeTheirOwnPassword(t *testing.T) {
	t.Parallel()
	a := handlerstest.Setup(t)
	rita, _ := a.As(t, "rita", auth.ReadOnly)
	const newPassword = "rita's brand new passphrase"

	rec := a.Request(rita, http.MethodGet, "/account/password", nil)
	require.Equal(t, http.StatusOK, rec.Code)
	doc := handlerstest.Parse(t, rec)
	require.Equal(t, "Password", handlerstest.Text(doc.Find(`[data-testid="account-nav"] [aria-current="page"]`)))
	require.Equal(t, 3, doc.Find(`[data-testid="password-form"] input[type="password"]`).Length())

	for _, tt := range []struct {
		name, current, next, confirm, field string
	}{
		{"a wrong current password", "not it at all", newPassword, newPassword, "current_password"},
		{"two different new passwords", handlerstest.TestPassword, newPassword, newPassword + "!", "confirm"},
		{"a short new password", handlerstest.TestPassword, "short", "short", "password"},
	} {
		rec := a.Request(rita, http.MethodPost, "/account/password", url.Values{
			"current_password": {tt.current}, "password": {tt.next}, "confirm": {tt.confirm},
		})
		require.Equal(t, http.StatusBadRequest, rec.Code, tt.name)
		doc := handlerstest.Parse(t, rec)
		require.NotEmpty(t, handlerstest.Text(doc.Find(`[data-testid="error-`+tt.field+`"]`)), tt.name)
		require.NotContains(t, rec.Body.String(), tt.current, "%s: nothing typed comes back", tt.name)
		require.NotContains(t, rec.Body.String(), tt.next, "%s: nothing typed comes back", tt.name)
	}
	_, err := a.Users.SignIn(context.Background(), "rita", handlerstest.TestPassword, "192.0.2.1")
	require.NoError(t, err, "refused changes change nothing")

	copied := rita
	rec = a.Request(rita, http.MethodPost, "/account/password", url.Values{
		"current_password": {handlerstest.TestPassword}, "password": {newPassword}, "confirm": {newPassword},
	})
	require.Equal(t, http.StatusSeeOther, rec.Code)
	rita = rita.Follow(rec)
	page := a.Request(rita, http.MethodGet, "/account/password", nil)
	require.Equal(t, http.StatusOK, page.Code, "the browser that changed it stays signed in")
	require.Contains(t, handlerstest.Text(handlerstest.Parse(t, page).Find(`[data-testid="flash-success"]`)), "Your password is changed")

	rec = a.Request(copied, http.MethodGet, "/account/password", nil)
	require.Equal(t, http.StatusSeeOther, rec.Code, "a copy of the old cookie is signed out")
	require.Contains(t, rec.Header().Get("Location"), "/signin")

	_, err = a.Users.SignIn(context.Background(), "rita", newPassword, "192.0.2.1")
	require.NoError(t, err)
}
