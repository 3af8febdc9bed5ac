package api

import (
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"strings"

	"github.com/styrmin/styrmin"
	oapi "github.com/styrmin/styrmin/api"
	"github.com/styrmin/styrmin/catalog"
	"github.com/styrmin/styrmin/handlers/httpx"
)

// The API's reads of the driver catalogue: the same catalogue and search as
// the drivers pages.

// driverCursor is where the next page of drivers starts: after this name.
type driverCursor struct {
	After string `json:"after"`
}

// ListDrivers lists the drivers that match q, by name, a page at a time: to
// a user whose own role is member, only those some team of theirs may
// deploy (teams.Store.DriversOf), as the catalogue page.
func (s *Server) ListDrivers(ctx context.Context, req oapi.ListDriversRequestObject) (oapi.ListDriversResponseObject, error) {
	var from driverCursor
	if err := decodeCursor(req.Params.Cursor, &from); err != nil {
		return nil, err
	}
	listing, err := s.Drivers.Listing(ctx)
	if err != nil {
		return nil, err
	}
	var query string
	if req.Params.Q != nil {
		query = *req.Params.Q
	}
	shown, err := s.Teams.DriversOf(ctx, httpx.APIUser(ctx))
	if err != nil {
		return nil, err
	}
	// Search returns a new slice, so sorting it leaves the shared listing alone.
	matches := slices.DeleteFunc(catalog.Search(listing.Entries, query, ""), func(e catalog.Entry) bool { return !shown.Allows(e.Name, e.Labels) })
	slices.SortFunc(matches, func(a, b catalog.Entry) int { return strings.Compare(a.Name, b.Name) })
	if start := slices.IndexFunc(matches, func(e catalog.Entry) bool { return e.Name > from.After }); start >= 0 {
		matches = matches[start:]
	} else {
		matches = nil
	}
	out := oapi.ListDrivers200JSONResponse{Items: []oapi.DriverSummary{}}
	limit := pageLimit(req.Params.Limit)
	if len(matches) > limit {
		matches = matches[:limit]
		out.NextCursor = encodeCursor(driverCursor{After: matches[limit-1].Name})
	}
	for _, e := range matches {
		labels := e.Labels
		if labels == nil {
			labels = map[string]string{}
		}
		out.Items = append(out.Items, oapi.DriverSummary{Name: e.Name, Version: e.Version, Title: e.Title,
			Summary: e.Summary, Labels: labels, Versions: e.Versions})
	}
	return out, nil
}

// GetDriver describes a driver by its newest version and lists its versions,
// newest first, from the catalogue's listing and version list (both kept in
// memory while database notifications arrive): no spec is read or decoded.
func (s *Server) GetDriver(ctx context.Context, req oapi.GetDriverRequestObject) (oapi.GetDriverResponseObject, error) {
	refs, err := s.Drivers.VersionRefs(ctx, req.Name)
	if err != nil {
		return nil, err
	}
	listing, err := s.Drivers.Listing(ctx)
	if err != nil {
		return nil, err
	}
	i := slices.IndexFunc(listing.Entries, func(e catalog.Entry) bool { return e.Name == req.Name })
	if i < 0 {
		return nil, styrmin.Errorf(styrmin.ENOTFOUND, "The catalogue has no driver %q.", req.Name)
	}
	newest := listing.Entries[i]
	out := oapi.GetDriver200JSONResponse{Name: req.Name, Title: newest.Title, Summary: newest.Summary,
		Versions: make([]string, len(refs))}
	for i, r := range refs {
		out.Versions[i] = r.Version
	}
	return out, nil
}

// GetDriverVersion shows one version of a driver with its parsed
// driver.styrmin.yml, under the field names of that file.
func (s *Server) GetDriverVersion(ctx context.Context, req oapi.GetDriverVersionRequestObject) (oapi.GetDriverVersionResponseObject, error) {
	v, err := s.driverVersion(ctx, req.Name, req.Version)
	if err != nil {
		return nil, err
	}
	return oapi.GetDriverVersion200JSONResponse(v), nil
}

// driverVersion is one version of a driver as the API shows it: its parsed
// driver.styrmin.yml and its permissions.
func (s *Server) driverVersion(ctx context.Context, name, version string) (oapi.DriverVersion, error) {
	v, err := s.Drivers.Get(ctx, name, version)
	if err != nil {
		return oapi.DriverVersion{}, err
	}
	raw, err := catalog.SpecJSON(v.Driver)
	if err != nil {
		return oapi.DriverVersion{}, fmt.Errorf("api: driver %s %s: %w", name, version, err)
	}
	var spec map[string]any
	if err := json.Unmarshal(raw, &spec); err != nil {
		return oapi.DriverVersion{}, fmt.Errorf("api: driver %s %s: %w", name, version, err)
	}
	perms, err := s.Drivers.Permissions(ctx, name, version)
	if err != nil {
		return oapi.DriverVersion{}, err
	}
	out, err := permissionsOut(perms)
	if err != nil {
		return oapi.DriverVersion{}, err
	}
	return oapi.DriverVersion{Name: name, Version: version, Digest: v.Digest,
		CreatedAt: v.CreatedAt, CreatedBy: v.CreatedBy, Source: v.Origin.Source, SignedBy: v.Origin.SignedBy, Readme: v.Readme, Spec: spec, Permissions: &out}, nil
}
