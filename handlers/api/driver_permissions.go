package api

import (
	"context"
	"slices"

	oapi "github.com/styrmin/styrmin/api"
	"github.com/styrmin/styrmin/catalog"
	"github.com/styrmin/styrmin/handlers/httpx"
)

// ApproveDriverPermissions approves what a driver version's chart needs
// (admins only: the permission table says so).
func (s *Server) ApproveDriverPermissions(ctx context.Context, req oapi.ApproveDriverPermissionsRequestObject) (oapi.ApproveDriverPermissionsResponseObject, error) {
	p, err := s.Drivers.ApprovePermissions(ctx, req.Name, req.Version, httpx.APIUser(ctx).Username)
	if err != nil {
		return nil, err
	}
	return oapi.ApproveDriverPermissions200JSONResponse(permissionsOut(p)), nil
}

// permissionsOut is a version's permissions as the API shows them.
func permissionsOut(p *catalog.Permissions) oapi.DriverPermissions {
	out := oapi.DriverPermissions{Items: []oapi.DriverPermissionItem{}}
	pending := p.Pending().Lines()
	for _, line := range p.Needs.Lines() {
		out.Items = append(out.Items, oapi.DriverPermissionItem{Approved: !slices.Contains(pending, line), Text: line})
	}
	if p.RenderError != "" {
		out.RenderError = &p.RenderError
	}
	if p.Approval != nil {
		out.ApprovedBy, out.ApprovedAt = &p.Approval.By, &p.Approval.At
	}
	return out
}
