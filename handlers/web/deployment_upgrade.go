package web

import (
	"context"
	"net/http"

	"github.com/labstack/echo/v4"

	"github.com/styrmin/styrmin"
	"github.com/styrmin/styrmin/deployment"
	"github.com/styrmin/styrmin/views"
)

// DeploymentUpgradeShow shows a deployment's upgrade form for the current or
// a newer driver version (driver_version); the htmx reload for another
// driver version carries the entered fields, which the form keeps.
func DeploymentUpgradeShow(svc deploymentInstaller, catalog DriverCatalog, md *views.Markdown) echo.HandlerFunc {
	return func(c echo.Context) error {
		ctx := c.Request().Context()
		entered := readEntered(c.QueryParams())
		form, err := svc.UpgradeForm(ctx, c.Param("name"), entered.DriverVersion)
		if err != nil {
			return err
		}
		return renderUpgradeForm(c, catalog, md, form, entered, nil, http.StatusOK)
	}
}

// renderUpgradeForm renders the upgrade form with status; refusal, when not
// nil, is the service's EINVALID error whose messages go next to the fields.
func renderUpgradeForm(c echo.Context, catalog DriverCatalog, md *views.Markdown, form *deployment.UpgradeForm, entered enteredForm, refusal error, status int) error {
	props, err := upgradeProps(c.Request().Context(), catalog, form, entered, styrmin.ErrorFields(refusal), md)
	if err != nil {
		return err
	}
	if refusal != nil {
		props.Error = styrmin.ErrorMessage(refusal)
	}
	props.Page = page(c, "Upgrade "+props.Name, views.NavDeployments)
	return render(c, status, views.DeploymentUpgradePage(props))
}

// upgradeProps are the upgrade form's props (without the layout's).
func upgradeProps(ctx context.Context, catalog DriverCatalog, form *deployment.UpgradeForm, entered enteredForm, fieldErrors map[string]string, md *views.Markdown) (views.DeploymentUpgradeProps, error) {
	d, drv := form.Deployment, form.Driver
	v, err := catalog.Get(ctx, d.Driver, form.DriverVersion)
	if err != nil {
		return views.DeploymentUpgradeProps{}, err
	}
	params := drv.Spec.Parameters
	groups, err := paramGroups(paramPrefix, params, formValues(params, form.Values, entered.Params, entered.Carried), fieldErrors, true, d.SecretsSet, md)
	if err != nil {
		return views.DeploymentUpgradeProps{}, err
	}
	actions, err := hookActionSections(form.HookActions, form.Prompts, entered, fieldErrors, md)
	if err != nil {
		return views.DeploymentUpgradeProps{}, err
	}
	p := views.DeploymentUpgradeProps{
		Name: d.Name, Namespace: d.Namespace, DriverName: d.Driver, DriverTitle: drv.Title(),
		DriverIconURL:        driverIconURL(d.Driver, form.DriverVersion, v.HasIcon),
		CurrentDriverVersion: d.DriverVersion, CurrentAppVersion: d.AppVersion,
		DriverVersion: form.DriverVersion, DriverVersions: versionChoices(form.DriverVersions, d.DriverVersion),
		AppVersion: form.AppVersion, AppVersions: form.AppVersions, AppVersionConstraint: drv.Spec.SupportedVersions,
		Groups: groups, Actions: actions, FieldErrors: fieldErrors,
	}
	if entered.Carried && entered.AppVersion != "" {
		p.AppVersion = entered.AppVersion
	}
	for _, name := range form.Removed {
		p.Removed = append(p.Removed, views.RemovedParam{Name: name})
	}
	return p, nil
}
