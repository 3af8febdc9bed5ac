package web

import (
	"context"
	"net/http"
	"slices"
	"strings"

	"github.com/labstack/echo/v4"

	"github.com/styrmin/styrmin/catalog"
	"github.com/styrmin/styrmin/views"
)

// DriverShow shows one version of a driver: the one named by the version
// query parameter, else the newest. A version's presentation is built and
// its body rendered once, and kept in pages; each request renders only the
// layout and the header (the version picker and the user's buttons).
func DriverShow(drivers DriverCatalog, md *views.Markdown, pages *DriverPages) echo.HandlerFunc {
	return func(c echo.Context) error {
		ctx := c.Request().Context()
		name := c.Param("name")
		versions, err := drivers.VersionRefs(ctx, name)
		if err != nil {
			return err
		}
		ref := pickVersion(versions, c.QueryParam("version"))
		props, ok := pages.Get(ref.Digest)
		if !ok {
			v, err := drivers.Get(ctx, name, ref.Version)
			if err != nil {
				return err
			}
			if props, err = driverShowProps(v, md); err != nil {
				return err
			}
			if props, err = withRenderedBody(ctx, props); err != nil {
				return err
			}
			pages.Add(v.Digest, props)
		}
		props.Versions = versionOptions(versions)
		props.Page = page(c, props.Title, views.NavDrivers)
		perms, err := drivers.Permissions(ctx, name, ref.Version)
		if err != nil {
			return err
		}
		props.Permissions = permissionsProps(perms, props.Page, name, ref.Version)
		return render(c, http.StatusOK, views.DriverShowPage(props))
	}
}

// withRenderedBody renders the body of a driver page and returns the props
// the header needs with the body as HTML, to be kept instead of the full
// presentation.
func withRenderedBody(ctx context.Context, props views.DriverShowProps) (views.DriverShowProps, error) {
	var body strings.Builder
	if err := views.DriverShowBody(props).Render(ctx, &body); err != nil {
		return views.DriverShowProps{}, err
	}
	return views.DriverShowProps{
		Name: props.Name, Version: props.Version, DevBuildOf: props.DevBuildOf, Title: props.Title, Summary: props.Summary,
		Labels: props.Labels, IconURL: props.IconURL, Body: views.SafeHTML(body.String()),
	}, nil
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
		_, _, dev := catalog.DevBuildOf(v.Version)
		out[i] = views.DriverVersionOption{Version: v.Version, Newest: i == 0, DevBuild: dev}
	}
	return out
}
