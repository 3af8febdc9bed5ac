package web

import (
	"fmt"
	"net/http"

	"github.com/labstack/echo/v4"

	"github.com/styrmin/styrmin"
	"github.com/styrmin/styrmin/deployment"
	"github.com/styrmin/styrmin/handlers/httpx"
	"github.com/styrmin/styrmin/views"
)

// DeploymentDeleteShow asks for the deployment's name, and the prompts of
// its delete hook actions, before deleting it.
func DeploymentDeleteShow(svc deploymentOperator, md *views.Markdown) echo.HandlerFunc {
	return func(c echo.Context) error {
		form, err := svc.DeleteForm(c.Request().Context(), c.Param("name"))
		if err != nil {
			return err
		}
		props, err := deleteProps(form, enteredForm{}, nil, md)
		if err != nil {
			return err
		}
		props.Page = page(c, "Delete "+props.Name, views.NavDeployments)
		return render(c, http.StatusOK, views.DeploymentDeletePage(props))
	}
}

// DeploymentDeleteSubmit queues the deletion when the name is confirmed and
// the prompts are valid, and shows the confirmation again when they are not.
func DeploymentDeleteSubmit(svc deploymentOperator, md *views.Markdown) echo.HandlerFunc {
	return func(c echo.Context) error {
		ctx := c.Request().Context()
		values, err := c.FormParams()
		if err != nil {
			return styrmin.Errorf(styrmin.EINVALID, "The form could not be read.")
		}
		entered := readEntered(values)
		entered.Carried = true
		name, confirm := c.Param("name"), values.Get("confirm")
		queued, err := svc.Queue(ctx, &deployment.Delete{Name: name, Confirm: confirm,
			Prompts: deployment.FormPrompts(entered.Prompts), By: httpx.CurrentUser(c).Username})
		if styrmin.ErrorCode(err) == styrmin.EINVALID {
			form, ferr := svc.DeleteForm(ctx, name)
			if ferr != nil {
				return ferr
			}
			props, perr := deleteProps(form, entered, err, md)
			if perr != nil {
				return perr
			}
			props.Page = page(c, "Delete "+props.Name, views.NavDeployments)
			props.Confirm = confirm
			return render(c, http.StatusUnprocessableEntity, views.DeploymentDeletePage(props))
		}
		if err != nil {
			return err
		}
		flash(c, views.FlashSuccess, fmt.Sprintf("Deployment %s is queued for deletion (task #%d).", queued.Deployment, queued.TaskID))
		return redirect(c, deploymentPath(queued.Deployment))
	}
}

// deleteProps are the delete page's props (without the layout's) with the
// entered prompts and, after a refusal, its messages: the confirmation's
// next to its field, the prompts' next to theirs.
func deleteProps(form *deployment.DeleteForm, entered enteredForm, refusal error, md *views.Markdown) (views.DeploymentDeleteProps, error) {
	d := form.Deployment
	fieldErrors := styrmin.ErrorFields(refusal)
	actions, err := hookActionSections(form.HookActions, form.Prompts, entered, fieldErrors, md)
	if err != nil {
		return views.DeploymentDeleteProps{}, err
	}
	p := views.DeploymentDeleteProps{Name: d.Name, Namespace: d.Namespace, NamespaceCreated: d.NamespaceCreated, Actions: actions}
	if refusal != nil {
		p.Error = fieldErrors["confirm"]
		if len(fieldErrors) == 0 {
			p.Error = styrmin.ErrorMessage(refusal)
		}
	}
	return p, nil
}
