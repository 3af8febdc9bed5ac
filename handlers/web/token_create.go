package web

import (
	"net/http"
	"time"

	"github.com/labstack/echo/v4"

	"github.com/styrmin/styrmin"
	"github.com/styrmin/styrmin/auth"
	"github.com/styrmin/styrmin/handlers/httpx"
	"github.com/styrmin/styrmin/teams"
	"github.com/styrmin/styrmin/views"
)

// TokenCreate creates an API token for the signed-in user, narrowed to one
// of their teams when the form names one, and answers with the page showing
// its secret, this once: the secret goes into no redirect, flash or cache
// (Cache-Control: no-store).
func TokenCreate(tokens apiTokenStore, teams *teams.Store) echo.HandlerFunc {
	return func(c echo.Context) error {
		form := views.APITokenForm{Name: c.FormValue("name"), Expires: c.FormValue("expires"), ExpiresAt: c.FormValue("expires_at"), Team: c.FormValue("team")}
		var created auth.CreatedAPIToken
		expiresAt, err := tokenExpiry(form, time.Now())
		if err == nil {
			created, err = tokens.CreateInTeam(c.Request().Context(), auth.Credential{User: *httpx.CurrentUser(c)}, form.Name, expiresAt, form.Team)
		}
		switch code := styrmin.ErrorCode(err); code {
		case "":
		case styrmin.EINVALID:
			form.Error, form.FieldErrors = styrmin.ErrorMessage(err), styrmin.ErrorFields(err)
			return renderTokens(c, tokens, teams, http.StatusUnprocessableEntity, form, nil)
		default:
			return err
		}
		c.Response().Header().Set(echo.HeaderCacheControl, "no-store")
		return renderTokens(c, tokens, teams, http.StatusOK, views.APITokenForm{},
			&views.CreatedAPIToken{Name: created.Name, Secret: created.Secret})
	}
}

// tokenExpiry returns when a token created at now with the form's expiry
// choice expires: nil for never. A custom date means until the end of that
// day, UTC; no choice means the default lifetime.
func tokenExpiry(form views.APITokenForm, now time.Time) (*time.Time, error) {
	switch form.Expires {
	case "":
		return auth.APITokenExpiry(now, auth.DefaultAPITokenLifetime), nil
	case views.ExpiresCustom:
		day, err := time.Parse(time.DateOnly, form.ExpiresAt)
		if err != nil {
			msg := "Choose the date the token expires, or another expiry."
			return nil, &styrmin.Error{Code: styrmin.EINVALID, Message: msg, Fields: map[string]string{"expires_at": msg}}
		}
		end := day.AddDate(0, 0, 1)
		return &end, nil
	}
	lifetime, err := auth.ParseAPITokenLifetime(form.Expires)
	if err != nil {
		return nil, err
	}
	return auth.APITokenExpiry(now, lifetime), nil
}
