package api

import (
	"context"
	"time"

	oapi "github.com/styrmin/styrmin/api"
	"github.com/styrmin/styrmin/audit"
	"github.com/styrmin/styrmin/auth"
	"github.com/styrmin/styrmin/handlers/httpx"
)

// PasswordGrantLifetime is how long a token from the password grant lasts:
// the default lifetime of a token made on the page.
const PasswordGrantLifetime = auth.DefaultAPITokenLifetime

// PasswordGrant signs in with a username and password, checked, throttled
// and audited as the sign-in page's (auth.Users.SignIn from the client's
// address, the audit log's signin), and answers with a new API token of the
// user, shown this once. The token and the sign-in's entry commit together.
func (s *Server) PasswordGrant(ctx context.Context, req oapi.PasswordGrantRequestObject) (oapi.PasswordGrantResponseObject, error) {
	// Named first, so that a refused attempt's entry says who tried.
	audit.NameTarget(ctx, auth.NormalizeUsername(req.Body.Username), map[string]string{"via": "password-grant"})
	u, err := s.Users.SignIn(ctx, req.Body.Username, req.Body.Password, httpx.ClientAddress(ctx))
	if err != nil {
		return nil, err
	}
	t, err := s.APITokens.Create(ctx, auth.Credential{User: u}, req.Body.Name, auth.APITokenExpiry(time.Now(), PasswordGrantLifetime))
	if err != nil {
		return nil, err
	}
	return oapi.PasswordGrant201JSONResponse(createdTokenOf(t)), nil
}
