package web

import (
	"net/http"
	"strconv"

	"github.com/labstack/echo/v4"

	"github.com/styrmin/styrmin"
	"github.com/styrmin/styrmin/deployment"
	"github.com/styrmin/styrmin/views"
)

// TaskShow is a task's live fragment, which replaces itself every second
// while the task is queued or running. Outside htmx it is the task's page. A
// poll that finds the task ended triggers views.TaskEndedEvent, on which the
// page's header reloads.
func TaskShow(svc deploymentReader) echo.HandlerFunc {
	return func(c echo.Context) error {
		name, t, err := taskOfPath(c, svc)
		if err != nil {
			return err
		}
		if !isHTMX(c) {
			return renderTaskPage(c, name, *t)
		}
		if t.Ended() {
			c.Response().Header().Set("HX-Trigger", views.TaskEndedEvent)
		}
		return render(c, http.StatusOK, views.Task(viewer(c), taskProps(name, *t)))
	}
}

// renderTaskPage renders the page of one task of the deployment name, with
// its steps.
func renderTaskPage(c echo.Context, name string, t deployment.Task) error {
	return render(c, http.StatusOK, views.DeploymentTaskPage(views.DeploymentTaskProps{
		Page: page(c, "Task "+strconv.FormatInt(t.ID, 10)+" of "+name, views.NavDeployments),
		Name: name, Task: taskProps(name, t),
	}))
}

// taskOfPath reads the task that /deployments/:name/tasks/:id names; an id
// that is no number is an ENOTFOUND error, like an unknown task.
func taskOfPath(c echo.Context, svc deploymentReader) (string, *deployment.Task, error) {
	name := c.Param("name")
	id, ok := parseID(c.Param("id"))
	if !ok {
		return name, nil, styrmin.Errorf(styrmin.ENOTFOUND, "Deployment %s has no task %q.", name, c.Param("id"))
	}
	t, err := svc.Task(c.Request().Context(), name, id)
	return name, t, err
}
