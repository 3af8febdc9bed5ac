package web

import (
	"context"
	"net/http"
	"time"

	"github.com/labstack/echo/v4"

	"github.com/styrmin/styrmin/auth"
	"github.com/styrmin/styrmin/handlers/httpx"
	"github.com/styrmin/styrmin/teams"
	"github.com/styrmin/styrmin/views"
)

// apiTokenStore is what the API tokens pages need from auth.APITokens.
type apiTokenStore interface {
	CreateInTeam(ctx context.Context, by auth.Credential, name string, expiresAt *time.Time, team string) (auth.CreatedAPIToken, error)
	List(ctx context.Context, user auth.User) ([]auth.APIToken, error)
	Revoke(ctx context.Context, by auth.User, id int64) error
}

var _ apiTokenStore = (*auth.APITokens)(nil)

// TokenList shows the signed-in user's API tokens and the form to create
// one, which offers their teams (nil: a server without teams).
func TokenList(tokens apiTokenStore, teams *teams.Store) echo.HandlerFunc {
	return func(c echo.Context) error {
		return renderTokens(c, tokens, teams, http.StatusOK, views.APITokenForm{}, nil)
	}
}

// renderTokens renders the API tokens page with form (empty, or with
// errors) and, right after creating a token, its secret.
func renderTokens(c echo.Context, tokens apiTokenStore, teams *teams.Store, status int, form views.APITokenForm, created *views.CreatedAPIToken) error {
	ctx, u := c.Request().Context(), httpx.CurrentUser(c)
	list, err := tokens.List(ctx, *u)
	if err != nil {
		return err
	}
	props := views.APITokensProps{Page: page(c, "API tokens", ""), Tokens: tokenRows(list), Form: form, Created: created}
	if teams != nil {
		mine, err := teams.Of(ctx, u.ID)
		if err != nil {
			return err
		}
		for _, m := range mine {
			props.Teams = append(props.Teams, m.Team)
		}
	}
	return render(c, status, views.APITokensPage(props))
}

// tokenRows returns the rows of the tokens tables.
func tokenRows(list []auth.APIToken) []views.APITokenRow {
	rows := make([]views.APITokenRow, 0, len(list))
	for _, t := range list {
		rows = append(rows, views.APITokenRow{
			ID: t.ID, Name: t.Name, CreatedAt: t.CreatedAt, ExpiresAt: t.ExpiresAt, LastUsedAt: t.LastUsedAt, Team: t.Team,
		})
	}
	return rows
}
