package handlers

import (
	"fmt"
	"net/http"

	"github.com/labstack/echo/v4"

	"github.com/styrmin/styrmin"
	"github.com/styrmin/styrmin/views"
)

// taskShow is a task's live fragment, which replaces itself every second
// while the task is queued or running. Outside htmx it is a page of its own,
// the task followed by a link to the deployment's older tasks. A poll that
// finds the task ended triggers views.TaskEndedEvent, on which the page's
// header reloads.
func taskShow(svc deploymentReader) echo.HandlerFunc {
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
		if !isHTMX(c) {
			heading := fmt.Sprintf("Task #%d of %s", id, name)
			return render(c, http.StatusOK, views.DeploymentTasksPage(views.DeploymentTasksProps{
				Page: page(c, heading, views.NavDeployments), Name: name, Heading: heading,
				Tasks: []views.TaskProps{taskProps(name, *t)}, OlderBefore: id,
			}))
		}
		if t.Ended() {
			c.Response().Header().Set("HX-Trigger", views.TaskEndedEvent)
		}
		return render(c, http.StatusOK, views.Task(viewer(c), taskProps(name, *t)))
	}
}
