package web

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"net/http"
	"slices"

	"github.com/labstack/echo/v4"

	"github.com/styrmin/styrmin"
	"github.com/styrmin/styrmin/deployment"
	"github.com/styrmin/styrmin/handlers/httpx"
	"github.com/styrmin/styrmin/permissions"
	"github.com/styrmin/styrmin/teams"
	"github.com/styrmin/styrmin/views"
)

// DeploymentInstallShow shows the install form of a driver version (the
// version or driver_version query parameter, else the newest). The htmx
// reload for another driver version carries the entered fields, which the
// form keeps; secrets are never sent back.
func DeploymentInstallShow(svc deploymentInstaller, catalog DriverCatalog, teams *teams.Store, md *views.Markdown) echo.HandlerFunc {
	return func(c echo.Context) error {
		ctx := c.Request().Context()
		entered := readEntered(c.QueryParams())
		version := cmp.Or(entered.DriverVersion, c.QueryParam("version"))
		form, err := svc.InstallForm(ctx, c.Param("name"), version)
		if err != nil {
			return err
		}
		where, err := teams.Deployable(ctx, httpx.TeamAccess(ctx, *httpx.CurrentUser(c)))
		if err != nil {
			return err
		}
		props, err := installProps(ctx, catalog, form, entered, where, nil, md)
		if err != nil {
			return err
		}
		props.Page = page(c, "Deploy "+props.DriverTitle, views.NavDrivers)
		if props.Permissions, err = deployPermissionsProps(ctx, catalog, props.Page, props.DriverName, props.DriverVersion, nil); err != nil {
			return err
		}
		return render(c, http.StatusOK, views.DeploymentInstallPage(props))
	}
}

// DeploymentInstallSubmit installs a driver as a new deployment and opens
// the deployment's page, where the install task runs live; refused values
// bring the form back with an error next to each bad field.
func DeploymentInstallSubmit(svc deploymentInstaller, catalog DriverCatalog, teams *teams.Store, md *views.Markdown) echo.HandlerFunc {
	return func(c echo.Context) error {
		ctx := c.Request().Context()
		values, err := c.FormParams()
		if err != nil {
			return styrmin.Errorf(styrmin.EINVALID, "The form could not be read.")
		}
		entered := readEntered(values)
		entered.Carried = true
		driver := c.Param("name")
		where, err := teams.Deployable(ctx, httpx.TeamAccess(ctx, *httpx.CurrentUser(c)))
		if err != nil {
			return err
		}
		queued, err := svc.Queue(ctx, &deployment.Install{
			Driver: driver, DriverVersion: entered.DriverVersion, Name: entered.Name, Namespace: entered.Namespace,
			Team: entered.Team, TeamsAllowed: where.IDs, Admin: where.Admin,
			AppVersion: entered.AppVersion, Parameters: deployment.FormInput(entered.Params),
			Prompts: deployment.FormPrompts(entered.Prompts), By: httpx.CurrentUser(c).Username,
		})
		var refused *permissions.RefusedError
		if styrmin.ErrorCode(err) == styrmin.EINVALID || errors.As(err, &refused) {
			return installRefused(c, svc, catalog, md, driver, entered, where, err)
		}
		if err != nil {
			return err
		}
		flash(c, views.FlashSuccess, fmt.Sprintf("Deployment %s is queued for install (task #%d); follow it below.", queued.Deployment, queued.TaskID))
		return redirect(c, deploymentPath(queued.Deployment))
	}
}

// installRefused shows the install form again with the entered values
// (secrets excepted) and the service's errors.
func installRefused(c echo.Context, svc deploymentInstaller, catalog DriverCatalog, md *views.Markdown, driver string, entered enteredForm, where teams.Deployable, refusal error) error {
	ctx := c.Request().Context()
	form, err := svc.InstallForm(ctx, driver, entered.DriverVersion)
	if styrmin.ErrorCode(err) == styrmin.ENOTFOUND && entered.DriverVersion != "" {
		form, err = svc.InstallForm(ctx, driver, "") // the form of the newest version, with the error
	}
	if err != nil {
		return err
	}
	props, err := installProps(ctx, catalog, form, entered, where, styrmin.ErrorFields(refusal), md)
	if err != nil {
		return err
	}
	props.Page = page(c, "Deploy "+props.DriverTitle, views.NavDrivers)
	props.Error = styrmin.ErrorMessage(refusal)
	if props.Permissions, err = deployPermissionsProps(ctx, catalog, props.Page, props.DriverName, props.DriverVersion, refusal); err != nil {
		return err
	}
	return render(c, http.StatusUnprocessableEntity, views.DeploymentInstallPage(props))
}

// installProps are the install form's props (without the layout's) for the
// service's form, keeping what the user entered when the form was carried;
// fieldErrors are the service's errors by field.
func installProps(ctx context.Context, catalog DriverCatalog, form *deployment.Form, entered enteredForm, where teams.Deployable, fieldErrors map[string]string, md *views.Markdown) (views.DeploymentInstallProps, error) {
	d := form.Driver
	v, err := catalog.Get(ctx, d.Metadata.Name, d.Spec.Version)
	if err != nil {
		return views.DeploymentInstallProps{}, err
	}
	params := d.Spec.Parameters
	groups, err := paramGroups(paramPrefix, params, formValues(params, form.Values, entered.Params, entered.Carried), fieldErrors, false, nil, md)
	if err != nil {
		return views.DeploymentInstallProps{}, err
	}
	actions, err := hookActionSections(form.HookActions, form.Prompts, entered, fieldErrors, md)
	if err != nil {
		return views.DeploymentInstallProps{}, err
	}
	offered, noTeam := where.ForDriver(d.Metadata.Name, d.Metadata.Labels)
	p := views.DeploymentInstallProps{
		DriverName: d.Metadata.Name, DriverTitle: d.Title(), DriverIconURL: driverIconURL(d.Metadata.Name, d.Spec.Version, v.HasIcon),
		DriverVersion: d.Spec.Version, DriverVersions: versionChoices(form.DriverVersions, ""),
		Name: entered.Name, Namespace: entered.Namespace, NameMaxLength: deployment.MaxNameLength,
		Team: chosenTeam(entered.Team, offered), Teams: offered, NoTeam: noTeam,
		AppVersion: form.AppVersion, AppVersions: form.AppVersions, AppVersionConstraint: d.Spec.SupportedVersions,
		Groups: groups, Actions: actions, FieldErrors: fieldErrors,
	}
	if entered.Carried && entered.AppVersion != "" {
		p.AppVersion = entered.AppVersion
	}
	return p, nil
}

// chosenTeam is the team a deploy form starts with: the one entered, else
// the team "default" when it is offered, else the first offered.
func chosenTeam(entered string, offered []string) string {
	switch {
	case entered != "":
		return entered
	case slices.Contains(offered, teams.Default) || len(offered) == 0:
		return teams.Default
	}
	return offered[0]
}
