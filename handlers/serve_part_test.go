package handlers_test

import (
	"context"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/styrmin/styrmin/auth"
	"github.com/styrmin/styrmin/deployment"
	"github.com/styrmin/styrmin/handlers"
	"github.com/styrmin/styrmin/handlers/action"
)

// jobsPrimitives lets any token in and runs every Job at once.
type jobsPrimitives struct{ action.Primitives }

func (jobsPrimitives) Authenticate(context.Context, string) (*deployment.Caller, error) {
	return &deployment.Caller{}, nil
}

func (jobsPrimitives) ExecuteCommands(context.Context, *deployment.Caller, deployment.CommandsRequest) (*deployment.CommandsResult, error) {
	return &deployment.CommandsResult{Job: "site-job", Succeeded: true}, nil
}

// statusOf is what a server of part answers to method target.
func statusOf(t *testing.T, part handlers.Part, method, target string) int {
	t.Helper()
	sessions, err := auth.NewSessions([]byte(strings.Repeat("k", auth.MinSessionKeyLength)), nil) // a visitor without a cookie reads no database
	require.NoError(t, err)
	e := handlers.New(handlers.Deps{Logger: slog.New(slog.DiscardHandler), Sessions: sessions, Primitives: jobsPrimitives{}, Serves: part})
	req := httptest.NewRequest(method, target, strings.NewReader(`{"commands": ["true"], "image": "busybox", "timeout": 60}`))
	req.Header.Set("Authorization", "Bearer sta_test")
	req.Header.Set("Content-Type", "application/json")
	rec := httptest.NewRecorder()
	e.ServeHTTP(rec, req)
	return rec.Code
}

// TestAWebOnlyServerAnswers404OnTheActionAPI: the chart's web pods
// (`serve --serve web`) do not answer the action API's paths, its
// document included, while a server of everything and the action API's
// pods (`--serve actions`) do; those answer nothing else.
func TestAWebOnlyServerAnswers404OnTheActionAPI(t *testing.T) {
	t.Parallel()
	document, jobs := action.Prefix+"openapi.json", action.Prefix+"jobs"
	require.Equal(t, http.StatusNotFound, statusOf(t, handlers.ServeWeb, http.MethodGet, document))
	require.Equal(t, http.StatusNotFound, statusOf(t, handlers.ServeWeb, http.MethodPost, jobs))
	require.Equal(t, http.StatusOK, statusOf(t, handlers.ServeWeb, http.MethodGet, "/healthz"))
	for _, part := range []handlers.Part{handlers.ServeAll, handlers.ServeActions, ""} {
		require.Equal(t, http.StatusOK, statusOf(t, part, http.MethodGet, document), part)
		require.Equal(t, http.StatusOK, statusOf(t, part, http.MethodPost, jobs), part)
	}
	for _, target := range []string{"/signin", "/static/app.css", "/api/v1/deployments", "/api/v1/openapi.json"} {
		require.Equal(t, http.StatusNotFound, statusOf(t, handlers.ServeActions, http.MethodGet, target), target)
	}
	require.Equal(t, http.StatusOK, statusOf(t, handlers.ServeActions, http.MethodGet, "/healthz"))
}

func TestParsePartKnowsThreeParts(t *testing.T) {
	t.Parallel()
	for name, want := range map[string]handlers.Part{"": handlers.ServeAll, "all": handlers.ServeAll, "web": handlers.ServeWeb, " actions ": handlers.ServeActions} {
		got, err := handlers.ParsePart(name)
		require.NoError(t, err, name)
		require.Equal(t, want, got, name)
	}
	require.False(t, handlers.ServeActions.WebServed(), "the action API's pods keep no deployment's health")
	require.True(t, handlers.ServeWeb.WebServed())
	require.True(t, handlers.ServeAll.WebServed())
	_, err := handlers.ParsePart("api")
	require.ErrorContains(t, err, `unknown part "api": give all, web or actions`)
}
