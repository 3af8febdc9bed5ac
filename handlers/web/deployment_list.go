package web

import (
	"cmp"
	"net/http"

	"github.com/labstack/echo/v4"

	"github.com/styrmin/styrmin/deployment"
	"github.com/styrmin/styrmin/executor"
	"github.com/styrmin/styrmin/views"
)

// DeploymentList lists the deployments, a page at a time (?after= the
// previous page's last one); ?deleted=1 includes deleted ones.
func DeploymentList(svc deploymentReader) echo.HandlerFunc {
	return func(c echo.Context) error {
		o := deployment.ListOptions{IncludeDeleted: c.QueryParam("deleted") == "1"}
		if after := c.QueryParam("after"); after != "" {
			var err error
			if o.After, err = deployment.ParseListKey(after); err != nil {
				return err
			}
		}
		list, err := svc.List(c.Request().Context(), o)
		if err != nil {
			return err
		}
		props := views.DeploymentListProps{Page: page(c, "Deployments", views.NavDeployments), ShowDeleted: o.IncludeDeleted, Continued: o.After != nil}
		if list.Next != nil {
			props.NextAfter = list.Next.String()
		}
		for _, s := range list.Items {
			props.Deployments = append(props.Deployments, deploymentRow(s))
		}
		return render(c, http.StatusOK, views.DeploymentListPage(props))
	}
}

// deploymentRow is a deployment as the list shows it.
func deploymentRow(s deployment.Summary) views.DeploymentRow {
	row := views.DeploymentRow{
		Name: s.Name, Namespace: s.Namespace, DriverName: s.Driver, DriverTitle: cmp.Or(s.DriverTitle, s.Driver),
		DriverVersion: s.DriverVersion, DriverIconURL: driverIconURL(s.Driver, s.DriverVersion, s.HasIcon),
		AppVersion: s.AppVersion, Status: string(s.Status),
	}
	if s.Busy {
		row.Busy = views.BusyElsewhere
		if s.LastTask.Status == executor.TaskRunning {
			row.Busy = s.LastTask.Kind
		}
	}
	if s.Health != nil {
		row.Health = string(s.Health.Word)
	}
	if s.LastTask.ID != 0 {
		row.LastTask = &views.TaskSummary{ID: s.LastTask.ID, Kind: s.LastTask.Kind, Status: string(s.LastTask.Status), At: s.LastTask.CreatedAt, By: s.LastTask.By}
	}
	return row
}
