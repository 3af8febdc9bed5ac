package web_test

import (
	"net/http"
	"strings"
	"testing"

	"github.com/styrmin/styrmin/handlers/handlerstest"

	"github.com/stretchr/testify/require"

	"github.com/styrmin/styrmin/static"
)

func TestStaticFiles(t *testing.T) {
	t.Parallel()
	a := handlerstest.Setup(t)
	tests := []struct {
		name, contentType string
	}{
		{"css/app.css", "text/css; charset=utf-8"},
		{"js/htmx.min.js", "text/javascript; charset=utf-8"},
		{"img/logo.svg", "image/svg+xml"},
	}
	for _, tt := range tests {
		rec := a.Request(handlerstest.Visitor{}, http.MethodGet, static.URL(tt.name), nil)
		require.Equal(t, http.StatusOK, rec.Code, tt.name)
		require.Equal(t, tt.contentType, rec.Header().Get("Content-Type"), tt.name)
		require.Equal(t, "public, max-age=31536000, immutable", rec.Header().Get("Cache-Control"), "%s: addresses with a digest are cached for ever", tt.name)
	}
	rec := a.Request(handlerstest.Visitor{}, http.MethodGet, "/static/js/htmx.min.js", nil)
	require.True(t, strings.HasPrefix(rec.Header().Get("Cache-Control"), "public, max-age=300"))

	for _, path := range []string{"/static/nothing.css", "/static/", "/static/css/"} {
		require.Equal(t, http.StatusNotFound, a.Request(handlerstest.Visitor{}, http.MethodGet, path, nil).Code, path)
	}
}
