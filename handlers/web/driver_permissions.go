package web

import (
	"fmt"
	"net/url"
	"slices"

	"github.com/labstack/echo/v4"

	"github.com/styrmin/styrmin/catalog"
	"github.com/styrmin/styrmin/handlers/httpx"
	"github.com/styrmin/styrmin/views"
)

// DriverPermissionsApprove approves what a driver version's chart needs
// (admins only: the permission table says so) and shows the driver page again.
func DriverPermissionsApprove(drivers DriverCatalog) echo.HandlerFunc {
	return func(c echo.Context) error {
		name, version := c.Param("name"), c.Param("version")
		if _, err := drivers.ApprovePermissions(c.Request().Context(), name, version, httpx.CurrentUser(c).Username); err != nil {
			return err
		}
		flash(c, views.FlashSuccess, fmt.Sprintf("The permissions of %s %s are approved; installs of this version may create them.", name, version))
		return redirect(c, driverVersionURL(name, version))
	}
}

// driverVersionURL is the page of one version of a driver.
func driverVersionURL(name, version string) string {
	return "/drivers/" + url.PathEscape(name) + "?version=" + url.QueryEscape(version)
}

// permissionsProps presents a version's permissions to the user of page.
func permissionsProps(p *catalog.Permissions, page views.Page, name, version string) views.DriverPermissions {
	out := views.DriverPermissions{RenderError: p.RenderError, CSRFToken: page.CSRFToken,
		ApproveURL: "/drivers/" + url.PathEscape(name) + "/" + url.PathEscape(version) + "/permissions/approve"}
	pending := p.Pending().Lines()
	for _, line := range p.Needs.Lines() {
		out.Items = append(out.Items, views.DriverPermission{Text: line, Approved: !slices.Contains(pending, line)})
	}
	if p.Approval != nil {
		out.Approved = fmt.Sprintf("by %s on %s", p.Approval.By, p.Approval.At.UTC().Format("2006-01-02 15:04 UTC"))
	}
	out.CanApprove = page.User.IsAdmin() && len(pending) > 0
	return out
}
