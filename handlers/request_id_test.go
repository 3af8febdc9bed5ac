package handlers_test

import (
	"bytes"
	"context"
	"encoding/json"
	"log/slog"
	"net/http"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/styrmin/styrmin/audit"
	"github.com/styrmin/styrmin/auth"
	"github.com/styrmin/styrmin/handlers"
	"github.com/styrmin/styrmin/handlers/handlerstest"
	"github.com/styrmin/styrmin/handlers/httpx"
)

// auditEntryOf returns the one audit entry of the request with id.
func auditEntryOf(t *testing.T, a *handlerstest.App, id string) audit.Entry {
	t.Helper()
	page, err := a.Audit.List(context.Background(), audit.Viewer{Admin: true}, audit.Filter{RequestID: id})
	require.NoError(t, err)
	require.Len(t, page.Entries, 1, "the entries of request %s", id)
	return page.Entries[0]
}

// TestEveryAnswerNamesItsRequestAndTheLogLineAndAuditEntryCarryIt: an id
// quoted from an answer (its header, a problem's request_id, the error page)
// finds the request's log line and its audit entry.
func TestEveryAnswerNamesItsRequestAndTheLogLineAndAuditEntryCarryIt(t *testing.T) {
	t.Parallel()
	a := handlerstest.Setup(t)
	var logs bytes.Buffer
	deps := a.Deps
	deps.Logger = slog.New(slog.NewTextHandler(&logs, nil))
	a.Echo = handlers.New(deps)
	readOnly := a.TokenFor(t, "rita", auth.ReadOnly)

	rec := a.Call(t, readOnly, http.MethodPost, "/api/v1/users", map[string]any{"username": "mallory", "password": "long enough password", "role": "admin"})
	require.Equal(t, http.StatusForbidden, rec.Code)
	id := rec.Header().Get(httpx.HeaderRequestID)
	require.NotEmpty(t, id)
	var problem struct {
		RequestID string `json:"request_id"`
	}
	require.NoError(t, json.Unmarshal(rec.Body.Bytes(), &problem))
	require.Equal(t, id, problem.RequestID, "the problem names the request as its header does")
	require.Contains(t, logs.String(), "request_id="+id)

	admin := a.TokenFor(t, "root", auth.Admin)
	var entries struct {
		Items []struct {
			Action    string `json:"action"`
			Outcome   string `json:"outcome"`
			RequestID string `json:"request_id"`
		} `json:"items"`
	}
	listed := a.Call(t, admin, http.MethodGet, "/api/v1/audit?request_id="+id, nil)
	require.Equal(t, http.StatusOK, listed.Code)
	require.NoError(t, json.Unmarshal(listed.Body.Bytes(), &entries))
	require.Len(t, entries.Items, 1, "the audit API finds the request's entry by its id")
	require.Equal(t, "user.create", entries.Items[0].Action)
	require.Equal(t, "refused", entries.Items[0].Outcome)
	require.Equal(t, id, entries.Items[0].RequestID)

	visitor, _ := a.As(t, "vera", auth.ReadOnly)
	page := a.Request(visitor, http.MethodGet, "/deployments/nothing-here", nil)
	require.Equal(t, http.StatusNotFound, page.Code)
	shown := handlerstest.Text(handlerstest.Parse(t, page).Find(`[data-testid="error-request-id"] code`))
	require.Equal(t, page.Header().Get(httpx.HeaderRequestID), shown, "the error page shows the id to quote")

	again := a.Call(t, readOnly, http.MethodGet, "/api/v1/me", nil)
	require.NotEqual(t, id, again.Header().Get(httpx.HeaderRequestID), "each request has an id of its own")
}

// TestOnlyATrustedProxyChoosesARequestsID: a trusted proxy's X-Request-Id
// follows the request into the audit log; a client cannot choose its id (it
// could pin its requests to another's entries), nor can a proxy pass one
// that would break a log line.
func TestOnlyATrustedProxyChoosesARequestsID(t *testing.T) {
	t.Parallel()
	a := behindProxy(t)
	signin := func(peer, id string) string {
		t.Helper()
		rec := a.SigninFrom(a.Anonymous(t), peer, "admin", "wrong password", httpx.HeaderRequestID, id)
		require.Equal(t, http.StatusUnauthorized, rec.Code)
		return rec.Header().Get(httpx.HeaderRequestID)
	}

	require.Equal(t, "proxy-7f3a", signin("10.0.0.5", "proxy-7f3a"))
	require.Equal(t, "signin", auditEntryOf(t, a, "proxy-7f3a").Action)

	forged := signin("203.0.113.66", "chosen-by-client")
	require.NotEqual(t, "chosen-by-client", forged)
	require.True(t, httpx.ValidRequestID(forged))

	for _, bad := range []string{"two words", `quote"d`, strings.Repeat("x", 129), "tab\there"} {
		got := signin("10.0.0.5", bad)
		require.NotEqual(t, bad, got, "%q from a trusted proxy", bad)
		require.True(t, httpx.ValidRequestID(got))
	}
}
