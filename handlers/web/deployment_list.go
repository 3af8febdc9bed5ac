package web

import (
	"cmp"
	"context"
	"github.com/styrmin/styrmin/handlers/httpx"
	"github.com/styrmin/styrmin/teams"
	"net/http"
	"strconv"
	"strings"

	"github.com/labstack/echo/v4"

	"github.com/styrmin/styrmin"
	"github.com/styrmin/styrmin/catalog"
	"github.com/styrmin/styrmin/deployment"
	"github.com/styrmin/styrmin/executor"
	"github.com/styrmin/styrmin/health"
	"github.com/styrmin/styrmin/views"
)

// driverListing is what the deployments list reads of the catalogue: its
// drivers, for the driver filter (kept in memory by catalog.Catalog).
type driverListing interface {
	Listing(ctx context.Context) (catalog.Listing, error)
}

// DeploymentList lists the deployments, a page at a time (?after= the
// previous page's last one, or ?before= the next page's first one, ?limit= a
// page's size); ?deleted=1 includes deleted ones; ?q= (part
// of the name), ?driver=, ?namespace=, ?health= and ?drifted= filter them
// (the REST API's names). A filter that cannot apply is said on the page
// (400). For htmx (the filters and the pager) it sends only the results.
func DeploymentList(svc deploymentReader, drivers driverListing, visible *teams.Store) echo.HandlerFunc {
	return func(c echo.Context) error {
		ctx := c.Request().Context()
		o := deployment.ListOptions{IncludeDeleted: c.QueryParam("deleted") == "1"}
		var err error
		if o.Teams, err = visible.Visible(ctx, *httpx.CurrentUser(c)); err != nil {
			return err
		}
		at := views.ListPlace{After: c.QueryParam("after"), Before: c.QueryParam("before")}
		for _, place := range []struct {
			text string
			key  **deployment.ListKey
		}{{at.After, &o.After}, {at.Before, &o.Before}} {
			if place.text == "" {
				continue
			}
			if *place.key, err = deployment.ParseListKey(place.text); err != nil {
				return err
			}
		}
		if o.Limit, err = listLimit(c.QueryParam("limit")); err != nil {
			return err
		}
		typed := views.DeploymentFilter{
			Query: strings.TrimSpace(c.QueryParam("q")), Driver: c.QueryParam("driver"), Namespace: strings.TrimSpace(c.QueryParam("namespace")),
			Health: c.QueryParam("health"), Drifted: c.QueryParam("drifted"),
		}
		props := views.DeploymentListProps{Page: page(c, "Deployments", views.NavDeployments), ShowDeleted: o.IncludeDeleted, Filter: typed, Limit: o.Limit}
		for _, w := range health.Words {
			props.HealthWords = append(props.HealthWords, string(w))
		}
		listing, err := drivers.Listing(ctx)
		if err != nil {
			return err
		}
		for _, e := range listing.Entries {
			props.Drivers = append(props.Drivers, views.DriverOption{Name: e.Name, Title: cmp.Or(e.Title, e.Name)})
		}
		o.Filter, err = deploymentFilter(typed)
		var list deployment.ListPage
		if err == nil {
			list, err = svc.List(ctx, o)
		}
		status := http.StatusOK
		switch {
		case styrmin.ErrorCode(err) == styrmin.EINVALID:
			props.Problem, status = styrmin.ErrorMessage(err), http.StatusBadRequest
		case err != nil:
			return err
		}
		if list.Next != nil {
			props.NextAfter = list.Next.String()
		}
		if list.Prev != nil {
			props.PrevBefore = list.Prev.String()
		}
		// A page after the first links the first; so does an empty one past the end.
		props.Continued = list.Prev != nil || (o.After != nil && len(list.Items) == 0)
		if o.Before != nil && list.Prev == nil {
			at = views.ListPlace{} // Previous reached the first page: its own address.
		}
		for _, s := range list.Items {
			props.Deployments = append(props.Deployments, deploymentRow(s))
		}
		c.Response().Header().Add("Vary", "HX-Request")
		if isHTMX(c) {
			// The address shared is the filter's own, without the form's empty fields.
			c.Response().Header().Set("HX-Push-Url", views.DeploymentListURL(o.IncludeDeleted, typed, o.Limit, at))
			return render(c, status, views.DeploymentResults(props))
		}
		return render(c, status, views.DeploymentListPage(props))
	}
}

// listLimit is the page size ?limit= asks for, 0 when it names none: a
// number from 1 to deployment.DefaultListPage, else an EINVALID error.
func listLimit(s string) (int, error) {
	if s == "" {
		return 0, nil
	}
	n, err := strconv.Atoi(s)
	if err != nil || n < 1 || n > deployment.DefaultListPage {
		return 0, styrmin.Errorf(styrmin.EINVALID, "A page holds 1 to %d deployments, not %q.", deployment.DefaultListPage, s)
	}
	return n, nil
}

// deploymentFilter is the service's filter of the form's; a drifted that
// is neither true nor false is an EINVALID error.
func deploymentFilter(f views.DeploymentFilter) (deployment.ListFilter, error) {
	out := deployment.ListFilter{Query: f.Query, Driver: f.Driver, Namespace: f.Namespace, Health: health.Word(f.Health)}
	switch f.Drifted {
	case "":
	case "true", "false":
		drifted := f.Drifted == "true"
		out.Drifted = &drifted
	default:
		return out, styrmin.Errorf(styrmin.EINVALID, "Drifted is true or false, not %q.", f.Drifted)
	}
	return out, nil
}

// deploymentRow is a deployment as the list shows it.
func deploymentRow(s deployment.Summary) views.DeploymentRow {
	row := views.DeploymentRow{
		Name: s.Name, Namespace: s.Namespace, Team: s.Team, DriverName: s.Driver, DriverTitle: cmp.Or(s.DriverTitle, s.Driver),
		DriverVersion: s.DriverVersion, DriverIconURL: driverIconURL(s.Driver, s.DriverVersion, s.HasIcon),
		AppVersion: s.AppVersion, Status: string(s.Status), UpdateAvailable: s.UpdateAvailable,
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
	if s.Drift != nil {
		row.Drift = s.Drift.Word
	}
	if s.LastTask.ID != 0 {
		row.LastTask = &views.TaskSummary{ID: s.LastTask.ID, Kind: s.LastTask.Kind, Status: string(s.LastTask.Status), At: s.LastTask.CreatedAt, By: s.LastTask.By}
	}
	return row
}
