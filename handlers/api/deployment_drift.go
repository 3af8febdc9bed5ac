package api

import (
	"context"

	oapi "github.com/styrmin/styrmin/api"
	"github.com/styrmin/styrmin/deployment"
	"github.com/styrmin/styrmin/drift"
	"github.com/styrmin/styrmin/handlers/httpx"
)

// GetDeploymentDrift answers how the deployment's live objects differ from
// its release's manifest.
func (s *Server) GetDeploymentDrift(ctx context.Context, req oapi.GetDeploymentDriftRequestObject) (oapi.GetDeploymentDriftResponseObject, error) {
	dr, err := s.Deployments.Drift(ctx, req.Name)
	if err != nil {
		return nil, err
	}
	return oapi.GetDeploymentDrift200JSONResponse(apiDrift(dr)), nil
}

// AcceptDeploymentDrift accepts the deployment's differences as they are now.
func (s *Server) AcceptDeploymentDrift(ctx context.Context, req oapi.AcceptDeploymentDriftRequestObject) (oapi.AcceptDeploymentDriftResponseObject, error) {
	dr, err := s.Deployments.AcceptDrift(ctx, req.Name, httpx.APIUser(ctx).Username)
	if err != nil {
		return nil, err
	}
	return oapi.AcceptDeploymentDrift200JSONResponse(apiDrift(dr)), nil
}

// apiDrift is a deployment's drift as the API shows it, its lists empty, never null.
func apiDrift(dr *deployment.Drift) oapi.Drift {
	out := oapi.Drift{Word: oapi.DriftWord(dr.Word), Reason: nonEmpty(dr.Reason), Revision: dr.Revision,
		Checked: dr.Checked, CheckedAt: dr.At, Objects: apiDriftedObjects(dr.Objects), Accepted: apiDriftedObjects(dr.Accepted),
		Unchecked: make([]oapi.UncheckedObject, 0, len(dr.Unchecked))}
	for _, u := range dr.Unchecked {
		out.Unchecked = append(out.Unchecked, oapi.UncheckedObject{ApiVersion: u.APIVersion, Kind: u.Kind, Namespace: nonEmpty(u.Namespace), Name: u.Name, Why: u.Why})
	}
	return out
}

// apiDriftedObjects are objects that differ as the API shows them.
func apiDriftedObjects(objs []drift.ObjectDiff) []oapi.DriftedObject {
	out := make([]oapi.DriftedObject, 0, len(objs))
	for _, o := range objs {
		fields := make([]oapi.DriftedField, 0, len(o.Fields))
		for _, f := range o.Fields {
			fields = append(fields, oapi.DriftedField{Path: f.Path, Want: f.Want, Have: f.Have})
		}
		out = append(out, oapi.DriftedObject{ApiVersion: o.APIVersion, Kind: o.Kind, Namespace: nonEmpty(o.Namespace), Name: o.Name,
			Change: oapi.DriftedObjectChange(o.Change), ResourceVersion: nonEmpty(o.ResourceVersion), Fields: fields, FieldsLeftOut: o.FieldsLeftOut})
	}
	return out
}
