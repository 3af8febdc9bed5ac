package web

import (
	"net/http"
	"net/url"

	"github.com/labstack/echo/v4"

	"github.com/styrmin/styrmin/deployment"
	"github.com/styrmin/styrmin/drift"
	"github.com/styrmin/styrmin/views"
)

// DeploymentDrift is a deployment's drift section, which its page asks for
// once loaded and again on "Check drift"; without htmx, the page itself.
func DeploymentDrift(svc deploymentReader) echo.HandlerFunc {
	return func(c echo.Context) error {
		name := c.Param("name")
		if !isHTMX(c) {
			return c.Redirect(http.StatusSeeOther, "/deployments/"+url.PathEscape(name)+"#deployment-drift")
		}
		dr, err := svc.Drift(c.Request().Context(), name)
		if err != nil {
			return err
		}
		return render(c, http.StatusOK, views.DeploymentDrift(driftProps(dr, viewer(c))))
	}
}

// driftProps is a deployment's drift as its section shows it to v.
func driftProps(dr *deployment.Drift, v views.Viewer) views.DriftProps {
	p := views.DriftProps{Name: dr.Name, Word: dr.Word, Reason: dr.Reason, Revision: dr.Revision, Checked: dr.Checked, At: dr.At,
		Objects: driftRows(dr.Objects), Accepted: driftRows(dr.Accepted), Viewer: v}
	for _, u := range dr.Unchecked {
		p.Unchecked = append(p.Unchecked, views.DriftUncheckedRow{Object: u.Ref.String(), Why: u.Why})
	}
	return p
}

// driftRows are objects that differ as the section lists them.
func driftRows(objs []drift.ObjectDiff) []views.DriftObjectRow {
	var out []views.DriftObjectRow
	for _, o := range objs {
		row := views.DriftObjectRow{Object: o.Ref.String(), Deleted: o.Change == drift.Deleted, FieldsLeftOut: o.FieldsLeftOut}
		for _, f := range o.Fields {
			row.Fields = append(row.Fields, views.DriftFieldRow{Path: f.Path, Want: f.Want, Have: f.Have})
		}
		out = append(out, row)
	}
	return out
}
