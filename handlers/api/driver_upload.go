package api

import (
	"context"

	oapi "github.com/styrmin/styrmin/api"
	"github.com/styrmin/styrmin/catalog"
	"github.com/styrmin/styrmin/drivers"
	"github.com/styrmin/styrmin/handlers/httpx"
)

// MaxUpload bounds the body of a driver upload: the bundle size limit, as
// the upload page's, since an archive compresses the files it holds.
const MaxUpload = drivers.MaxBundleSize

// UploadDriver imports a bundle archive through the catalogue's one import
// path (its archive limits, the driver contract, immutable versions) and
// answers the version: 201 when stored, 200 when the catalogue held it
// with the same content already.
func (s *Server) UploadDriver(ctx context.Context, req oapi.UploadDriverRequestObject) (oapi.UploadDriverResponseObject, error) {
	res, err := s.Drivers.ImportArchive(ctx, req.Body, catalog.ArchiveImport{By: httpx.APIUser(ctx).Username})
	if err != nil {
		return nil, err
	}
	v, err := s.driverVersion(ctx, res.Name, res.Version)
	if err != nil {
		return nil, err
	}
	if res.Created {
		return oapi.UploadDriver201JSONResponse(v), nil
	}
	return oapi.UploadDriver200JSONResponse(v), nil
}
