package web

import (
	"net/http"
	"net/url"

	"github.com/labstack/echo/v4"

	"github.com/styrmin/styrmin"
	"github.com/styrmin/styrmin/drivers"
)

// iconPolicy keeps an icon inert even when opened directly: an SVG can carry
// script, so the response may load nothing and runs sandboxed.
const iconPolicy = "default-src 'none'; style-src 'unsafe-inline'; sandbox"

// iconURL is the address of a driver version's icon.
func iconURL(name, version string) string {
	return "/drivers/" + url.PathEscape(name) + "/" + url.PathEscape(version) + "/icon"
}

// DriverIcon serves a driver version's icon with its checked content type.
func DriverIcon(store DriverCatalog) echo.HandlerFunc {
	return func(c echo.Context) error {
		name, version := c.Param("name"), c.Param("version")
		icon, err := store.Icon(c.Request().Context(), name, version)
		if err != nil {
			return err
		}
		if !drivers.IsIconType(icon.ContentType) {
			return styrmin.Errorf(styrmin.EINTERNAL, "driver %s %s: stored icon has content type %q, which is not served", name, version, icon.ContentType)
		}
		h := c.Response().Header()
		h.Set("Content-Security-Policy", iconPolicy)
		h.Set("X-Content-Type-Options", "nosniff")
		// A driver version never changes, so neither does its icon.
		h.Set("Cache-Control", "private, max-age=86400, immutable")
		return c.Blob(http.StatusOK, icon.ContentType, icon.Data)
	}
}
