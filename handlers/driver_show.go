package handlers

import (
	"net/http"

	"github.com/labstack/echo/v4"

	"github.com/styrmin/styrmin/views"
)

// driverShow shows one version of a driver: the one named by the version
// query parameter, else the newest.
func driverShow(drivers DriverCatalog, md *views.Markdown) echo.HandlerFunc {
	return func(c echo.Context) error {
		ctx := c.Request().Context()
		name := c.Param("name")
		versions, err := drivers.Versions(ctx, name)
		if err != nil {
			return err
		}
		version := c.QueryParam("version")
		if version == "" {
			version = versions[0]
		}
		v, err := drivers.Get(ctx, name, version)
		if err != nil {
			return err
		}
		props, err := driverShowProps(v, versions, md)
		if err != nil {
			return err
		}
		props.Page = page(c, props.Title, views.NavDrivers)
		return render(c, http.StatusOK, views.DriverShowPage(props))
	}
}
