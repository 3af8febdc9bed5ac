package handlers

import (
	"context"
	"fmt"
	"strconv"

	"github.com/labstack/echo/v4"

	"github.com/styrmin/styrmin"
	"github.com/styrmin/styrmin/deployment"
	"github.com/styrmin/styrmin/views"
)

// componentsOperation is Stop or Start of the service.
type componentsOperation func(ctx context.Context, name string, components []string, by string) (*deployment.Queued, error)

// deploymentComponents queues a stop or start of the posted components (the
// component field, repeated; none means all) and goes back to the page.
func deploymentComponents(op componentsOperation, verb string) echo.HandlerFunc {
	return func(c echo.Context) error {
		values, err := c.FormParams()
		if err != nil {
			return styrmin.Errorf(styrmin.EINVALID, "The form could not be read.")
		}
		name := c.Param("name")
		queued, err := op(c.Request().Context(), name, values["component"], currentUser(c).Username)
		if err != nil {
			return backToDeployment(c, name, err)
		}
		flash(c, views.FlashSuccess, fmt.Sprintf("The %s of %s is queued (task #%d).", verb, queued.Deployment, queued.TaskID))
		return redirect(c, deploymentPath(name))
	}
}

// deploymentRollback queues a roll back to the posted revision.
func deploymentRollback(svc deploymentOperator) echo.HandlerFunc {
	return func(c echo.Context) error {
		name := c.Param("name")
		revision, err := strconv.Atoi(c.FormValue("revision"))
		if err != nil || revision < 1 {
			return backToDeployment(c, name, styrmin.Errorf(styrmin.EINVALID, "Choose a revision to roll back to."))
		}
		queued, err := svc.Rollback(c.Request().Context(), name, revision, currentUser(c).Username)
		if err != nil {
			return backToDeployment(c, name, err)
		}
		flash(c, views.FlashSuccess, fmt.Sprintf("The roll back of %s to revision %d is queued (task #%d).", name, revision, queued.TaskID))
		return redirect(c, deploymentPath(name))
	}
}

// backToDeployment shows a refused change (bad input, a deleted deployment)
// as a message on the deployment's page; other errors, and an unknown
// deployment, go to the error handler.
func backToDeployment(c echo.Context, name string, err error) error {
	switch styrmin.ErrorCode(err) {
	case styrmin.EINVALID, styrmin.ECONFLICT:
		flash(c, views.FlashError, styrmin.ErrorMessage(err))
		return redirect(c, deploymentPath(name))
	default:
		return err
	}
}

// stopOf is svc's Stop, looked up only when called: svc is nil when a test
// builds the permission table without dependencies.
func stopOf(svc deploymentOperator) componentsOperation {
	return func(ctx context.Context, name string, components []string, by string) (*deployment.Queued, error) {
		return svc.Stop(ctx, name, components, by)
	}
}

// startOf is svc's Start, looked up only when called.
func startOf(svc deploymentOperator) componentsOperation {
	return func(ctx context.Context, name string, components []string, by string) (*deployment.Queued, error) {
		return svc.Start(ctx, name, components, by)
	}
}
