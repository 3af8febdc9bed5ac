package web

import (
	"net/http"
	"slices"
	"strings"

	"github.com/labstack/echo/v4"

	"github.com/styrmin/styrmin"
	"github.com/styrmin/styrmin/deployment"
	"github.com/styrmin/styrmin/executor"
	"github.com/styrmin/styrmin/handlers/httpx"
	"github.com/styrmin/styrmin/views"
)

// TaskActivity lists the tasks of every deployment the user may see (a
// member: their teams' deployments, kept by the query), newest first,
// filtered by ?deployment=, ?status= and ?kind=, a page at a time
// (?before=). For htmx (the filters and the live refresh) it sends only the
// list.
func TaskActivity(svc deploymentReader, visible teamVisibility) echo.HandlerFunc {
	return func(c echo.Context) error {
		filter, err := taskActivityFilter(c)
		if err != nil {
			return err
		}
		ctx := c.Request().Context()
		teams, err := visible.Visible(ctx, *httpx.CurrentUser(c))
		if err != nil {
			return err
		}
		props := views.TaskActivityProps{Page: page(c, "Tasks", views.NavTasks), Filter: filter}
		list, err := svc.TaskList(ctx, deployment.TaskFilter{
			Deployment: filter.Deployment, Status: executor.TaskStatus(filter.Status), Kind: filter.Kind, Before: filter.Before,
			Teams: teams, SummaryOnly: true,
		})
		switch {
		case styrmin.ErrorCode(err) == styrmin.ENOTFOUND:
			props.Problem = styrmin.ErrorMessage(err)
		case err != nil:
			return err
		default:
			for _, t := range list.Tasks {
				props.Tasks = append(props.Tasks, taskProps(t.Deployment, t.Task))
			}
			props.OlderBefore = list.Next
		}
		c.Response().Header().Add("Vary", "HX-Request")
		if isHTMX(c) {
			return render(c, http.StatusOK, views.TaskActivity(props))
		}
		return render(c, http.StatusOK, views.TaskActivityPage(props))
	}
}

// taskActivityFilter reads the tasks page's filter from the query; a status
// or kind that is none is an EINVALID error.
func taskActivityFilter(c echo.Context) (views.TaskActivityFilter, error) {
	f := views.TaskActivityFilter{
		Deployment: strings.TrimSpace(c.QueryParam("deployment")),
		Status:     c.QueryParam("status"),
		Kind:       c.QueryParam("kind"),
	}
	if f.Status != "" && !slices.Contains(views.TaskStatuses, f.Status) {
		return f, styrmin.Errorf(styrmin.EINVALID, "There is no task status %q; choose one of %s.", f.Status, strings.Join(views.TaskStatuses, ", "))
	}
	if f.Kind != "" && !slices.Contains(views.TaskKinds, f.Kind) {
		return f, styrmin.Errorf(styrmin.EINVALID, "There is no task kind %q; choose one of %s.", f.Kind, strings.Join(views.TaskKinds, ", "))
	}
	var err error
	f.Before, err = beforeParam(c)
	return f, err
}
