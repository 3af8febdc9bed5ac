package web

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/url"
	"slices"
	"strings"

	"github.com/labstack/echo/v4"

	"github.com/styrmin/styrmin"
	"github.com/styrmin/styrmin/catalog"
	"github.com/styrmin/styrmin/handlers/httpx"
	"github.com/styrmin/styrmin/permissions"
	"github.com/styrmin/styrmin/views"
)

// DriverPermissionsApprove approves what a driver version's chart needs, or
// the items of the form's items field (JSON of a permissions.Set: what a
// refused deploy named), for admins only (the permission table says so),
// and shows the page of the form's next field (a local path), else the
// driver page.
func DriverPermissionsApprove(drivers DriverCatalog) echo.HandlerFunc {
	return func(c echo.Context) error {
		name, version := c.Param("name"), c.Param("version")
		var items *permissions.Set
		if raw := c.FormValue("items"); raw != "" {
			items = new(permissions.Set)
			dec := json.NewDecoder(strings.NewReader(raw))
			dec.DisallowUnknownFields()
			if err := dec.Decode(items); err != nil {
				return styrmin.Errorf(styrmin.EINVALID, "The permission items to approve do not parse: %v.", err)
			}
		}
		if _, err := drivers.ApprovePermissions(c.Request().Context(), name, version, httpx.CurrentUser(c).Username, items); err != nil {
			return err
		}
		if items != nil {
			flash(c, views.FlashSuccess, fmt.Sprintf("Approved for %s %s: %s.", name, version, strings.Join(items.Lines(), "; ")))
		} else {
			flash(c, views.FlashSuccess, fmt.Sprintf("The permissions of %s %s are approved; installs of this version may create them.", name, version))
		}
		if next := c.FormValue("next"); next != "" {
			return redirect(c, safeNext(next))
		}
		return redirect(c, driverVersionURL(name, version))
	}
}

// permissionsApproveURL is where an admin approves permissions of a driver version.
func permissionsApproveURL(name, version string) string {
	return "/drivers/" + url.PathEscape(name) + "/" + url.PathEscape(version) + "/permissions/approve"
}

// driverVersionURL is the page of one version of a driver.
func driverVersionURL(name, version string) string {
	return "/drivers/" + url.PathEscape(name) + "?version=" + url.QueryEscape(version)
}

// permissionsProps presents a version's permissions to the user of page.
func permissionsProps(p *catalog.Permissions, page views.Page, name, version string) views.DriverPermissions {
	out := views.DriverPermissions{RenderError: p.RenderError, CSRFToken: page.CSRFToken, ApproveURL: permissionsApproveURL(name, version)}
	pending := p.Pending().Lines()
	for _, line := range p.Needs.Lines() {
		out.Items = append(out.Items, views.DriverPermission{Text: line, Approved: !slices.Contains(pending, line)})
	}
	for _, line := range p.Extra().Lines() {
		out.Items = append(out.Items, views.DriverPermission{Text: line, Approved: true, Beyond: true})
	}
	if p.Approval != nil {
		out.Approved = fmt.Sprintf("by %s on %s", p.Approval.By, p.Approval.At.UTC().Format("2006-01-02 15:04 UTC"))
	}
	out.CanApprove = page.User.IsAdmin() && len(pending) > 0
	return out
}

// deployPermissionsProps presents the permissions of a driver version to the
// user of a deploy page; refusal, when it refused the entered values (a
// *permissions.RefusedError), adds what they need beyond the defaults,
// which an admin may approve and come back to that version's deploy form.
func deployPermissionsProps(ctx context.Context, drivers DriverCatalog, page views.Page, name, version string, refusal error) (views.DeployPermissions, error) {
	return permissionsFor(ctx, drivers, page, name, version, refusal,
		"/drivers/"+url.PathEscape(name)+"/deploy?version="+url.QueryEscape(version))
}

// permissionsFor is deployPermissionsProps coming back to next after an
// admin's approval of the refused items.
func permissionsFor(ctx context.Context, drivers DriverCatalog, page views.Page, name, version string, refusal error, next string) (views.DeployPermissions, error) {
	p, err := drivers.Permissions(ctx, name, version)
	if err != nil {
		return views.DeployPermissions{}, err
	}
	out := views.DeployPermissions{
		DriverVersion: version, DriverPermissions: permissionsProps(p, page, name, version),
		Pending: !p.Pending().Empty(), IsAdmin: page.User.IsAdmin(),
		DriverURL: driverVersionURL(name, version) + "#driver-permissions",
		Next:      next,
	}
	var refused *permissions.RefusedError
	if errors.As(refusal, &refused) {
		beyond := refused.Beyond()
		out.Beyond = beyond.Lines()
		data, err := json.Marshal(beyond)
		if err != nil {
			return out, fmt.Errorf("web: permissions of %s %s: %w", name, version, err)
		}
		out.BeyondJSON = string(data)
	}
	return out, nil
}
