package handlers

import (
	"net/http"
	"strconv"

	"github.com/labstack/echo/v4"

	"github.com/styrmin/styrmin"
	"github.com/styrmin/styrmin/views"
)

// taskSteps is the steps of a task that the history shows folded: for htmx
// the list that takes the place of its link, else a page of the task with
// its steps, so that they open without JavaScript too.
func taskSteps(svc deploymentReader) echo.HandlerFunc {
	return func(c echo.Context) error {
		name := c.Param("name")
		id, ok := parseID(c.Param("id"))
		if !ok {
			return styrmin.Errorf(styrmin.ENOTFOUND, "Deployment %s has no task %q.", name, c.Param("id"))
		}
		t, err := svc.Task(c.Request().Context(), name, id)
		if err != nil {
			return err
		}
		props := taskProps(name, *t)
		if isHTMX(c) {
			return render(c, http.StatusOK, views.TaskSteps(viewer(c), props.Steps))
		}
		return render(c, http.StatusOK, views.DeploymentTaskPage(views.DeploymentTaskProps{
			Page: page(c, "Task "+strconv.FormatInt(id, 10)+" of "+name, views.NavDeployments),
			Name: name, Task: props,
		}))
	}
}
