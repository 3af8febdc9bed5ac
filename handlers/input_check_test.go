package handlers_test

import (
	"net/http"
	"net/url"
	"testing"

	"github.com/styrmin/styrmin/handlers/handlerstest"

	"github.com/stretchr/testify/require"

	"github.com/styrmin/styrmin/auth"
)

// TestMalformedInputIsRefusedBeforeAnyHandler sends paths, query strings and
// form values holding NUL bytes or invalid UTF-8 to several routes: each is
// answered 400 before a handler (or PostgreSQL) sees it, never 500.
func TestMalformedInputIsRefusedBeforeAnyHandler(t *testing.T) {
	t.Parallel()
	a := handlerstest.Setup(t)
	admin, _ := a.As(t, "root", auth.Admin)
	tests := []struct {
		name   string
		method string
		target string
		form   url.Values
	}{
		{"NUL in a driver name", http.MethodGet, "/drivers/a%00b", nil},
		{"invalid UTF-8 in a driver name", http.MethodGet, "/drivers/a%ffb", nil},
		{"NUL in an icon's version", http.MethodGet, "/drivers/hello-web/1.0.0%00/icon", nil},
		{"invalid UTF-8 in a query value", http.MethodGet, "/drivers/hello-web?version=%ff", nil},
		{"NUL in a query value", http.MethodGet, "/drivers/hello-web?version=1%00", nil},
		{"invalid UTF-8 in a query key", http.MethodGet, "/drivers?%ff=1", nil},
		{"NUL in a catalogue search", http.MethodGet, "/drivers?q=a%00", nil},
		{"invalid UTF-8 in a user id", http.MethodPost, "/users/%ff/role", url.Values{"role": {"admin"}}},
		{"NUL in a form value", http.MethodPost, "/users", url.Values{"username": {"a\x00b"}, "password": {handlerstest.TestPassword}, "role": {"operator"}}},
		{"invalid UTF-8 in a form value", http.MethodPost, "/users", url.Values{"username": {"a\xffb"}, "password": {handlerstest.TestPassword}, "role": {"operator"}}},
		{"NUL on an anonymous route", http.MethodGet, "/signin?next=/%00", nil},
		{"invalid UTF-8 on a bare route", http.MethodGet, "/static/%ff.css", nil},
		{"invalid UTF-8 on a route that does not exist", http.MethodGet, "/nowhere/%ff", nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			rec := a.Request(admin, tt.method, tt.target, tt.form)
			require.Equal(t, http.StatusBadRequest, rec.Code, rec.Body.String())
			require.Contains(t, handlerstest.Text(handlerstest.Parse(t, rec).Find(`[data-testid="error-message"]`)), "not valid UTF-8 text")
		})
	}
}

// TestWellFormedInputPassesTheCheck makes sure the check refuses only what is
// malformed: non-ASCII letters in paths, queries and forms are fine.
func TestWellFormedInputPassesTheCheck(t *testing.T) {
	t.Parallel()
	a := handlerstest.Setup(t)
	admin, _ := a.As(t, "root", auth.Admin)
	require.Equal(t, http.StatusOK, a.Request(admin, http.MethodGet, "/drivers?q=%C3%A9t%C3%A9", nil).Code)
	require.Equal(t, http.StatusNotFound, a.Request(admin, http.MethodGet, "/drivers/%C3%A9t%C3%A9", nil).Code)
	rec := a.Request(admin, http.MethodPost, "/users", url.Values{"username": {"zoë"}, "password": {handlerstest.TestPassword}, "role": {"operator"}})
	require.Less(t, rec.Code, 500, rec.Body.String())
	require.NotEqual(t, http.StatusBadRequest, rec.Code, rec.Body.String())
}
