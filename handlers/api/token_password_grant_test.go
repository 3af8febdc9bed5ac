package api_test

import (
	"context"
	"encoding/json"
	"net/http"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	oapi "github.com/styrmin/styrmin/api"
	"github.com/styrmin/styrmin/audit"
	"github.com/styrmin/styrmin/auth"
	"github.com/styrmin/styrmin/handlers/api"
	"github.com/styrmin/styrmin/handlers/handlerstest"
)

// grant asks for a token with username and password, as styrmin login
// --username does (no token of its own).
func grant(t *testing.T, a *handlerstest.App, username, password string) (int, oapi.CreatedAPIToken, oapi.Problem) {
	t.Helper()
	rec := a.Call(t, "", http.MethodPost, "/api/v1/tokens/password-grant", oapi.PasswordGrant{Username: username, Password: password, Name: "styrmin CLI on laptop"})
	var created oapi.CreatedAPIToken
	var problem oapi.Problem
	if rec.Code == http.StatusCreated {
		require.NoError(t, json.Unmarshal(rec.Body.Bytes(), &created))
	} else {
		problem = problemOf(t, rec)
	}
	return rec.Code, created, problem
}

// signins are the audit log's sign-in entries about username, newest first.
func signins(t *testing.T, a *handlerstest.App, username string) []audit.Entry {
	t.Helper()
	page, err := a.Audit.List(context.Background(), audit.Viewer{Admin: true}, audit.Filter{Action: audit.ActionSignin, TargetName: username})
	require.NoError(t, err)
	return page.Entries
}

func TestPasswordGrantGivesTheUserANamedTokenOnceAndAuditsTheSignIn(t *testing.T) {
	t.Parallel()
	a := handlerstest.Setup(t)
	_, alice := a.As(t, "alice", auth.Operator)

	status, created, problem := grant(t, a, " Alice ", handlerstest.TestPassword)
	require.Equal(t, http.StatusCreated, status, "%+v", problem)
	a.RequireTokenWorks(t, created.Token, alice, "the token is alice's")
	require.Equal(t, "styrmin CLI on laptop", created.Name)
	require.Equal(t, "alice", created.Username)
	require.NotNil(t, created.ExpiresAt)
	require.WithinDuration(t, time.Now().Add(api.PasswordGrantLifetime), *created.ExpiresAt, time.Minute)

	rec := a.Call(t, created.Token, http.MethodGet, "/api/v1/tokens", nil)
	require.Equal(t, http.StatusOK, rec.Code)
	require.NotContains(t, rec.Body.String(), created.Token, "the secret is in the grant's answer only")
	require.Contains(t, rec.Body.String(), "styrmin CLI on laptop")

	entries := signins(t, a, "alice")
	require.Len(t, entries, 1)
	e := entries[0]
	require.Equal(t, audit.Allowed, e.Outcome)
	require.Equal(t, "alice", e.Actor.Name, "a sign-in's actor is who signs in")
	require.Equal(t, audit.ViaNone, e.Actor.Via)
	require.Equal(t, "192.0.2.1", e.Actor.Address, "the client's address, as the sign-in page records it")
	require.Equal(t, "password-grant", e.Detail["via"])
}

// TestPasswordGrantParallelWrongPasswordsAreThrottledAsTheSignInPage is the
// attack: many wrong passwords at once for one user from one address. Exactly
// MaxFailuresPerPair are checked, the others are refused unchecked; then the
// right password is refused there too, on the API and on the sign-in page
// alike (one count of failures), while the owner at another address still
// gets a token.
func TestPasswordGrantParallelWrongPasswordsAreThrottledAsTheSignInPage(t *testing.T) {
	t.Parallel()
	a := handlerstest.Setup(t)
	_, alice := a.As(t, "alice", auth.Admin)

	const attempts = 3 * auth.MaxFailuresPerPair
	statuses := make(chan int, attempts)
	var wg sync.WaitGroup
	for range attempts {
		wg.Go(func() {
			status, _, _ := grant(t, a, "alice", "guess")
			statuses <- status
		})
	}
	wg.Wait()
	close(statuses)
	counts := map[int]int{}
	for s := range statuses {
		counts[s]++
	}
	require.Equal(t, map[int]int{http.StatusUnauthorized: auth.MaxFailuresPerPair, http.StatusTooManyRequests: attempts - auth.MaxFailuresPerPair}, counts)

	status, _, problem := grant(t, a, "alice", handlerstest.TestPassword)
	require.Equal(t, http.StatusTooManyRequests, status, "the right password is not checked either")
	require.Equal(t, "Too many failed sign-in attempts; try again in 15 minutes.", problem.Detail)
	require.Equal(t, oapi.Throttled, problem.Code)
	web := a.Anonymous(t)
	require.Equal(t, http.StatusTooManyRequests, a.SigninFrom(web, "192.0.2.1", "alice", handlerstest.TestPassword).Code,
		"the sign-in page counts the API's failures from the same address")

	rec := a.Call(t, "", http.MethodPost, "/api/v1/tokens/password-grant", oapi.PasswordGrant{Username: "alice", Password: handlerstest.TestPassword, Name: "owner"})
	require.Equal(t, http.StatusTooManyRequests, rec.Code)
	created := a.CallFrom(t, "198.51.100.7", "", http.MethodPost, "/api/v1/tokens/password-grant", oapi.PasswordGrant{Username: "alice", Password: handlerstest.TestPassword, Name: "owner"})
	require.Equal(t, http.StatusCreated, created.Code, "guesses from one address never lock the owner out: %s", created.Body)
	var token oapi.CreatedAPIToken
	require.NoError(t, json.Unmarshal(created.Body.Bytes(), &token))
	a.RequireTokenWorks(t, token.Token, alice, "the owner's token")

	var refused, throttled int
	for _, e := range signins(t, a, "alice") {
		if e.Outcome == audit.Refused {
			refused++
			if e.Reason == "Too many failed sign-in attempts; try again in 15 minutes." {
				throttled++
			}
		}
	}
	require.Equal(t, attempts+3, refused, "every refused attempt is in the audit log (the sign-in page's too)")
	require.Equal(t, attempts+2-auth.MaxFailuresPerPair, throttled, "the API's throttled attempts say why (the page's entry has its status's words)")
}

// TestPasswordGrantAnswersAlikeForUnknownKnownDisabledAndSingleSignOnUsers
// is the attack of a username hunt: a wrong password for a known user, an
// unknown username, a disabled user and a user of single sign-on (who has
// no password) get the same answer, word for word.
func TestPasswordGrantAnswersAlikeForUnknownKnownDisabledAndSingleSignOnUsers(t *testing.T) {
	t.Parallel()
	a := handlerstest.Setup(t)
	_, _ = a.As(t, "alice", auth.Operator)
	_, dora := a.As(t, "dora", auth.Operator)
	_, err := a.Deps.Users.SetDisabled(context.Background(), dora.ID, true)
	require.NoError(t, err)
	sso, err := a.Deps.Users.SignInIdentity(context.Background(), auth.Identity{Issuer: "https://idp.example", Subject: "42", Username: "sam", Role: auth.Operator})
	require.NoError(t, err)

	answer := func(username, password string) (int, oapi.Problem) {
		status, _, problem := grant(t, a, username, password)
		problem.RequestId = nil // each request's own
		return status, problem
	}
	wantStatus, want := answer("alice", "wrong password")
	require.Equal(t, http.StatusUnauthorized, wantStatus)
	require.Equal(t, oapi.Unauthorized, want.Code)
	for _, tc := range []struct{ why, username, password string }{
		{"an unknown username", "nobody", "wrong password"},
		{"a disabled user with the right password", "dora", handlerstest.TestPassword},
		{"a user of single sign-on", sso.Username, handlerstest.TestPassword},
	} {
		status, got := answer(tc.username, tc.password)
		require.Equal(t, wantStatus, status, tc.why)
		require.Equal(t, want, got, tc.why)
	}
}

// TestPasswordGrantReadsNoTokenAndChecksItsBody: the grant is open to
// anyone (a token, even an admin's, changes nothing) and refuses a body
// without a password or a token name.
func TestPasswordGrantReadsNoTokenAndChecksItsBody(t *testing.T) {
	t.Parallel()
	a := handlerstest.Setup(t)
	admin := a.TokenFor(t, "root", auth.Admin)
	for _, body := range []any{
		map[string]string{"username": "root", "name": "cli"},
		map[string]string{"username": "root", "password": handlerstest.TestPassword},
		map[string]string{"username": "root", "password": handlerstest.TestPassword, "name": ""},
	} {
		rec := a.Call(t, admin, http.MethodPost, "/api/v1/tokens/password-grant", body)
		require.Equal(t, http.StatusBadRequest, rec.Code, "%v: %s", body, rec.Body)
	}
	rec := a.Call(t, admin, http.MethodPost, "/api/v1/tokens/password-grant", oapi.PasswordGrant{Username: "root", Password: "wrong password", Name: "cli"})
	require.Equal(t, http.StatusUnauthorized, rec.Code, "an admin's token does not stand for the password")
}
