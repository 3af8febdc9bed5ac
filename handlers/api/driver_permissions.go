package api

import (
	"context"
	"encoding/json"
	"fmt"
	"slices"

	oapi "github.com/styrmin/styrmin/api"
	"github.com/styrmin/styrmin/catalog"
	"github.com/styrmin/styrmin/handlers/httpx"
	"github.com/styrmin/styrmin/permissions"
)

// ApproveDriverPermissions approves what a driver version's chart needs, or
// the items of the request (admins only: the permission table says so).
func (s *Server) ApproveDriverPermissions(ctx context.Context, req oapi.ApproveDriverPermissionsRequestObject) (oapi.ApproveDriverPermissionsResponseObject, error) {
	var items *permissions.Set
	if req.Body != nil && req.Body.Items != nil {
		items = new(permissions.Set)
		if err := convert(*req.Body.Items, items); err != nil {
			return nil, err
		}
	}
	p, err := s.Drivers.ApprovePermissions(ctx, req.Name, req.Version, httpx.APIUser(ctx).Username, items)
	if err != nil {
		return nil, err
	}
	out, err := permissionsOut(p)
	if err != nil {
		return nil, err
	}
	return oapi.ApproveDriverPermissions200JSONResponse(out), nil
}

// permissionsOut is a version's permissions as the API shows them.
func permissionsOut(p *catalog.Permissions) (oapi.DriverPermissions, error) {
	out := oapi.DriverPermissions{Items: []oapi.DriverPermissionItem{}}
	pending := p.Pending().Lines()
	for _, line := range p.Needs.Lines() {
		out.Items = append(out.Items, oapi.DriverPermissionItem{Approved: !slices.Contains(pending, line), Text: line})
	}
	beyond := true
	for _, line := range p.Extra().Lines() {
		out.Items = append(out.Items, oapi.DriverPermissionItem{Approved: true, BeyondDefaults: &beyond, Text: line})
	}
	if err := convert(p.Needs, &out.Needs); err != nil {
		return out, err
	}
	if p.RenderError != "" {
		out.RenderError = &p.RenderError
	}
	if p.Approval != nil {
		out.ApprovedBy, out.ApprovedAt = &p.Approval.By, &p.Approval.At
		out.Approved = new(oapi.PermissionSet)
		if err := convert(p.Approval.Set, out.Approved); err != nil {
			return out, err
		}
	}
	return out, nil
}

// convert copies a permission set between its API form and
// permissions.Set, which have the same JSON.
func convert(from, to any) error {
	data, err := json.Marshal(from)
	if err != nil {
		return fmt.Errorf("api: permission set: %w", err)
	}
	if err := json.Unmarshal(data, to); err != nil {
		return fmt.Errorf("api: permission set: %w", err)
	}
	return nil
}
