package web

import (
	"net/http"

	"github.com/labstack/echo/v4"

	"github.com/styrmin/styrmin"
	"github.com/styrmin/styrmin/deployment"
	"github.com/styrmin/styrmin/views"
)

// TaskList is a page of a deployment's tasks older than the task before,
// the ended ones with their steps folded: for htmx the history fragment that
// replaces the "Load older tasks" control, else a page of its own.
func TaskList(svc deploymentReader) echo.HandlerFunc {
	return func(c echo.Context) error {
		ctx := c.Request().Context()
		d, err := svc.Get(ctx, c.Param("name"))
		if err != nil {
			return err
		}
		before, err := beforeParam(c)
		if err != nil {
			return err
		}
		pick := unfolded(0)
		tasks, next, err := svc.TasksWithSteps(ctx, d.ID, before, deployment.DefaultTaskPage, pick)
		if err != nil {
			return err
		}
		props := taskPropsList(d.Name, tasks)
		foldSteps(props, tasks, pick)
		if isHTMX(c) {
			return render(c, http.StatusOK, views.TaskHistory(viewer(c), d.Name, props, next))
		}
		return render(c, http.StatusOK, views.DeploymentTasksPage(views.DeploymentTasksProps{
			Page: page(c, "Tasks of "+d.Name, views.NavDeployments),
			Name: d.Name, Tasks: props, OlderBefore: next,
		}))
	}
}

// beforeParam is the ?before= of a page of tasks: the task the page starts
// before, 0 for the newest. Anything but a task number is an EINVALID error.
func beforeParam(c echo.Context) (int64, error) {
	text := c.QueryParam("before")
	if text == "" {
		return 0, nil
	}
	before, ok := parseID(text)
	if !ok {
		return 0, styrmin.Errorf(styrmin.EINVALID, "before must be a task number.")
	}
	return before, nil
}
