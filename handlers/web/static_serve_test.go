package handlers

import (
	"net/http"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/styrmin/styrmin/static"
)

func TestStaticFiles(t *testing.T) {
	t.Parallel()
	a := setup(t)
	tests := []struct {
		name, contentType string
	}{
		{"css/app.css", "text/css; charset=utf-8"},
		{"js/htmx.min.js", "text/javascript; charset=utf-8"},
		{"img/logo.svg", "image/svg+xml"},
	}
	for _, tt := range tests {
		rec := a.request(visitor{}, http.MethodGet, static.URL(tt.name), nil)
		require.Equal(t, http.StatusOK, rec.Code, tt.name)
		require.Equal(t, tt.contentType, rec.Header().Get("Content-Type"), tt.name)
		require.Equal(t, "public, max-age=31536000, immutable", rec.Header().Get("Cache-Control"), "%s: addresses with a digest are cached for ever", tt.name)
	}
	rec := a.request(visitor{}, http.MethodGet, "/static/js/htmx.min.js", nil)
	require.True(t, strings.HasPrefix(rec.Header().Get("Cache-Control"), "public, max-age=300"))

	for _, path := range []string{"/static/nothing.css", "/static/", "/static/css/"} {
		require.Equal(t, http.StatusNotFound, a.request(visitor{}, http.MethodGet, path, nil).Code, path)
	}
}
