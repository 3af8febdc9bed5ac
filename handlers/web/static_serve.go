package web

import (
	"net/http"
	"strings"

	"github.com/labstack/echo/v4"

	"github.com/styrmin/styrmin/static"
)

// StaticFiles serves the embedded CSS, scripts and images. Addresses made by
// static.URL carry a content digest, so browsers may keep them for a year.
func StaticFiles() echo.HandlerFunc {
	files := http.StripPrefix(static.Prefix, http.FileServerFS(static.FS()))
	return func(c echo.Context) error {
		if name := c.Param("*"); name == "" || strings.HasSuffix(name, "/") {
			return echo.ErrNotFound // no folder listings
		}
		if c.QueryParam("v") != "" {
			c.Response().Header().Set("Cache-Control", "public, max-age=31536000, immutable")
		} else {
			c.Response().Header().Set("Cache-Control", "public, max-age=300")
		}
		files.ServeHTTP(c.Response(), c.Request())
		return nil
	}
}
