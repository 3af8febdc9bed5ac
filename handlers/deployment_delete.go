package handlers

import (
	"fmt"
	"net/http"

	"github.com/labstack/echo/v4"

	"github.com/styrmin/styrmin"
	"github.com/styrmin/styrmin/views"
)

// deploymentDeleteShow asks for the deployment's name before deleting it.
func deploymentDeleteShow(svc deploymentReader) echo.HandlerFunc {
	return func(c echo.Context) error {
		d, err := svc.Get(c.Request().Context(), c.Param("name"))
		if err != nil {
			return err
		}
		if d.DeletedAt != nil {
			return styrmin.Errorf(styrmin.ECONFLICT, "Deployment %s is deleted already; it stays in the history only.", d.Name)
		}
		props := views.DeploymentDeleteProps{
			Page: page(c, "Delete "+d.Name, views.NavDeployments),
			Name: d.Name, Namespace: d.Namespace, NamespaceCreated: d.NamespaceCreated,
		}
		return render(c, http.StatusOK, views.DeploymentDeletePage(props))
	}
}

// deploymentDeleteSubmit queues the deletion when the name is confirmed, and
// shows the confirmation again when it is not.
func deploymentDeleteSubmit(svc Deployments) echo.HandlerFunc {
	return func(c echo.Context) error {
		ctx := c.Request().Context()
		name, confirm := c.Param("name"), c.FormValue("confirm")
		queued, err := svc.Delete(ctx, name, confirm, nil, currentUser(c).Username)
		if styrmin.ErrorCode(err) == styrmin.EINVALID {
			d, gerr := svc.Get(ctx, name)
			if gerr != nil {
				return gerr
			}
			props := views.DeploymentDeleteProps{
				Page: page(c, "Delete "+d.Name, views.NavDeployments),
				Name: d.Name, Namespace: d.Namespace, NamespaceCreated: d.NamespaceCreated,
				Confirm: confirm, Error: cmpOr(styrmin.ErrorFields(err)["confirm"], styrmin.ErrorMessage(err)),
			}
			return render(c, http.StatusUnprocessableEntity, views.DeploymentDeletePage(props))
		}
		if err != nil {
			return err
		}
		flash(c, views.FlashSuccess, fmt.Sprintf("Deployment %s is queued for deletion (task #%d).", queued.Deployment, queued.TaskID))
		return redirect(c, deploymentPath(queued.Deployment))
	}
}
