package handlers_test

import (
	"net/http"
	"testing"

	"github.com/styrmin/styrmin/handlers/handlerstest"

	"github.com/stretchr/testify/require"

	"github.com/styrmin/styrmin/auth"
)

func TestNotFoundPage(t *testing.T) {
	t.Parallel()
	a := handlerstest.Setup(t)
	reader, _ := a.As(t, "reader", auth.ReadOnly)

	rec := a.Request(reader, http.MethodGet, "/no/such/page", nil)
	require.Equal(t, http.StatusNotFound, rec.Code)
	doc := handlerstest.Parse(t, rec)
	require.Equal(t, "404", handlerstest.Text(doc.Find(`[data-testid="error-status"]`)))
	require.Equal(t, "Page not found", handlerstest.Text(doc.Find("h1")))
	require.Equal(t, "reader", handlerstest.Text(doc.Find(`[data-testid="current-user"]`)), "the page keeps the signed-in layout")

	rec = a.Request(reader, http.MethodGet, "/no/such/page", nil, "HX-Request", "true")
	require.Equal(t, http.StatusNotFound, rec.Code)
	require.Equal(t, "#flash", rec.Header().Get("HX-Retarget"))
	require.Equal(t, "innerHTML", rec.Header().Get("HX-Reswap"))
	doc = handlerstest.Parse(t, rec)
	require.Empty(t, doc.Find("header").Nodes, "an htmx request gets a fragment, not a page")
	require.Contains(t, handlerstest.Text(doc.Find(`[data-testid="flash-error"]`)), "There is no page at this address")
}

func TestEveryResponseCarriesSecurityHeaders(t *testing.T) {
	t.Parallel()
	a := handlerstest.Setup(t)
	for _, path := range []string{"/signin", "/healthz", "/static/css/app.css", "/missing"} {
		rec := a.Request(handlerstest.Visitor{}, http.MethodGet, path, nil)
		require.Contains(t, rec.Header().Get("Content-Security-Policy"), "script-src 'self'", path)
		require.Equal(t, "nosniff", rec.Header().Get("X-Content-Type-Options"), path)
		require.Equal(t, "DENY", rec.Header().Get("X-Frame-Options"), path)
	}
}
