package web

import (
	"net/http"

	"github.com/labstack/echo/v4"

	"github.com/styrmin/styrmin/views"
)

// TaskSteps is the steps of a task that the history shows folded: for htmx
// the list that takes the place of its link, else the task's page.
func TaskSteps(svc deploymentReader) echo.HandlerFunc {
	return func(c echo.Context) error {
		name, t, err := taskOfPath(c, svc)
		if err != nil {
			return err
		}
		if !isHTMX(c) {
			return renderTaskPage(c, name, *t)
		}
		return render(c, http.StatusOK, views.TaskSteps(viewer(c), taskProps(name, *t).Steps))
	}
}
