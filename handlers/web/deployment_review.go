package web

import (
	"fmt"
	"net/http"
	"net/url"

	"github.com/labstack/echo/v4"

	"github.com/styrmin/styrmin"
	"github.com/styrmin/styrmin/deployment"
	"github.com/styrmin/styrmin/handlers/httpx"
	"github.com/styrmin/styrmin/teams/policytext"
	"github.com/styrmin/styrmin/views"
)

// DeploymentUpgradeReview checks an upgrade and shows what it would change,
// with Confirm and Back; refused values bring the form back with the errors.
func DeploymentUpgradeReview(svc deploymentInstaller, catalog DriverCatalog, md *views.Markdown) echo.HandlerFunc {
	return func(c echo.Context) error {
		ctx := c.Request().Context()
		values, err := c.FormParams()
		if err != nil {
			return styrmin.Errorf(styrmin.EINVALID, "The form could not be read.")
		}
		entered := readEntered(values)
		entered.Carried = true
		name := c.Param("name")
		review, err := svc.Review(ctx, &deployment.Upgrade{
			Name: name, DriverVersion: entered.DriverVersion, AppVersion: entered.AppVersion,
			Parameters: deployment.FormInput(entered.Params), Prompts: deployment.FormPrompts(entered.Prompts),
			By: httpx.CurrentUser(c).Username,
		})
		if styrmin.ErrorCode(err) == styrmin.EINVALID {
			form, ferr := svc.UpgradeForm(ctx, name, entered.DriverVersion)
			if styrmin.ErrorCode(ferr) == styrmin.EINVALID {
				form, ferr = svc.UpgradeForm(ctx, name, "") // the current version's form, with the error
			}
			if ferr != nil {
				return ferr
			}
			return renderUpgradeForm(c, catalog, md, form, entered, err, http.StatusUnprocessableEntity)
		}
		if err != nil {
			return err
		}
		props := reviewProps(review)
		props.Page = page(c, "Review the upgrade of "+name, views.NavDeployments)
		var refusal error
		if review.Refused != nil {
			refusal = review.Refused
		}
		next := deploymentPath(name) + "/upgrade?driver_version=" + url.QueryEscape(review.DriverVersion)
		if props.Permissions, err = permissionsFor(ctx, catalog, props.Page, review.Deployment.Driver, review.DriverVersion, refusal, next); err != nil {
			return err
		}
		props.Permissions.Pending = props.Permissions.Pending && review.Refused != nil // else the values need none of them
		return render(c, http.StatusOK, views.DeploymentReviewPage(props))
	}
}

// DeploymentUpgradeEdit goes back from a review to the form, filled in as
// reviewed; secret fields are blank (a blank secret keeps its current value).
func DeploymentUpgradeEdit(svc deploymentInstaller, catalog DriverCatalog, md *views.Markdown) echo.HandlerFunc {
	return func(c echo.Context) error {
		form, err := svc.EditUpgrade(c.Request().Context(), c.FormValue("review"), httpx.CurrentUser(c).Username)
		if err != nil {
			return err
		}
		return renderUpgradeForm(c, catalog, md, form, enteredForm{}, nil, http.StatusOK)
	}
}

// DeploymentUpgradeConfirm queues the reviewed upgrade and opens the
// deployment's page, where it runs live.
func DeploymentUpgradeConfirm(svc deploymentInstaller) echo.HandlerFunc {
	return func(c echo.Context) error {
		queued, err := svc.Queue(c.Request().Context(), deployment.ConfirmUpgrade{Token: c.FormValue("review"), By: httpx.CurrentUser(c).Username})
		if err != nil {
			return err
		}
		flash(c, views.FlashSuccess, fmt.Sprintf("The upgrade of %s is queued (task #%d).", queued.Deployment, queued.TaskID))
		return redirect(c, deploymentPath(queued.Deployment))
	}
}

// reviewProps are the review page's props (without the layout's): secrets
// go through views.NewParamChange, which drops their values.
func reviewProps(r *deployment.Review) views.DeploymentReviewProps {
	p := views.DeploymentReviewProps{
		Name:          r.Deployment.Name,
		From:          views.ReviewVersions{DriverVersion: r.FromDriverVersion, AppVersion: r.FromAppVersion},
		To:            views.ReviewVersions{DriverVersion: r.DriverVersion, AppVersion: r.AppVersion},
		DryRunError:   r.DryRunError,
		RecoversFirst: r.RecoversFirst,
		Requests:      reviewRequests(r.Requests),
		Token:         r.Token,
	}
	for _, ch := range r.Changes {
		p.Changes = append(p.Changes, views.NewParamChange(ch.Name, ch.Title, views.Change(ch.Kind), ch.Secret, ch.Old, ch.New))
	}
	for _, pv := range r.Prompts {
		p.Prompts = append(p.Prompts, views.ReviewPrompt{
			Action: views.HookActionSection{Name: pv.Action, Title: pv.ActionTitle, Hook: string(pv.Hook)},
			Name:   pv.Name, Title: pv.Title, Value: pv.Value, Secret: pv.Secret, Set: pv.Set,
		})
	}
	for _, res := range r.Resources {
		p.Resources = append(p.Resources, views.ResourceDiff{
			Kind: res.Kind, Name: res.Name, Namespace: res.Namespace, Change: views.Change(res.Change),
			Diff: res.Diff, ChangedSecretKeys: res.ChangedSecretKeys,
		})
	}
	return p
}

// reviewRequests writes a review's requests as the page shows them; nil
// when they were not counted.
func reviewRequests(r *deployment.Requests) *views.ReviewRequests {
	if r == nil {
		return nil
	}
	row := func(before *int64, after, others, total int64, quota *int64, write func(int64) string) views.ReviewRequest {
		out := views.ReviewRequest{After: write(after), Others: write(others), Total: write(total)}
		if before != nil {
			out.Before = write(*before)
		}
		if quota != nil {
			out.Quota = write(*quota)
		}
		return out
	}
	var cpuBefore, memoryBefore *int64
	if r.Before != nil {
		cpuBefore, memoryBefore = &r.Before.CPUMillis, &r.Before.MemoryBytes
	}
	total := r.Others.Add(r.After)
	return &views.ReviewRequests{
		Team:   r.Team,
		CPU:    row(cpuBefore, r.After.CPUMillis, r.Others.CPUMillis, total.CPUMillis, r.MaxCPUMillis, policytext.CPUString),
		Memory: row(memoryBefore, r.After.MemoryBytes, r.Others.MemoryBytes, total.MemoryBytes, r.MaxMemoryBytes, policytext.MemoryString),
	}
}
