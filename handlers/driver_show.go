package handlers

import (
	"net/http"
	"slices"

	"github.com/labstack/echo/v4"

	"github.com/styrmin/styrmin/catalog"
	"github.com/styrmin/styrmin/views"
)

// driverShow shows one version of a driver: the one named by the version
// query parameter, else the newest. A version's presentation is built once
// and kept in pages; each request reads only the driver's list of versions.
func driverShow(drivers DriverCatalog, md *views.Markdown, pages *driverPages) echo.HandlerFunc {
	return func(c echo.Context) error {
		ctx := c.Request().Context()
		name := c.Param("name")
		versions, err := drivers.VersionRefs(ctx, name)
		if err != nil {
			return err
		}
		ref := pickVersion(versions, c.QueryParam("version"))
		props, ok := pages.get(ref.Digest)
		if !ok {
			v, err := drivers.Get(ctx, name, ref.Version)
			if err != nil {
				return err
			}
			if props, err = driverShowProps(v, md); err != nil {
				return err
			}
			pages.add(v.Digest, props)
		}
		props.Versions = versionOptions(versions)
		props.Page = page(c, props.Title, views.NavDrivers)
		return render(c, http.StatusOK, views.DriverShowPage(props))
	}
}

// pickVersion returns the version named, or the newest when version is empty.
// A version the list lacks comes back without a digest, for Get to refuse.
func pickVersion(versions []catalog.VersionRef, version string) catalog.VersionRef {
	if version == "" {
		return versions[0]
	}
	if i := slices.IndexFunc(versions, func(r catalog.VersionRef) bool { return r.Version == version }); i >= 0 {
		return versions[i]
	}
	return catalog.VersionRef{Version: version}
}

// versionOptions lists the versions (newest first) for the version picker.
func versionOptions(versions []catalog.VersionRef) []views.DriverVersionOption {
	out := make([]views.DriverVersionOption, len(versions))
	for i, v := range versions {
		out[i] = views.DriverVersionOption{Version: v.Version, Newest: i == 0}
	}
	return out
}
